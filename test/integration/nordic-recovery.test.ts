import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { nordicBoard } from '../support/boards/board-on-pty.js';
import { nordicValue, onWire } from '../support/boards/nordic-wire.mjs';
import { useCleanups } from '../support/cleanups.js';
import { assertBuilt, startServe } from '../support/cli.js';
import { TestWsClient } from '../support/ws-client.js';

const cleanups = useCleanups();
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function shell(dataDir: string) {
  const s = await startServe(['--port', '0', '--data-dir', dataDir]);
  const client = await TestWsClient.connect(`${s.url.replace(/^http/, 'ws')}ws`);
  const call = async <T>(method: string, input: unknown): Promise<T> => {
    const r = await client.call(method, input);
    if (!r.ok) throw new Error(r.error.message);
    return r.value as T;
  };
  return { s, client, call };
}

describe('a Nordic take after a crash', () => {
  it('kill -9 of the browser shell mid-take: the next start has the rows at the board\'s rate, in seq order', async () => {
    assertBuilt();
    const dir = await mkdtemp(join(tmpdir(), 'cd-nordic-recover-'));
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    const { pty } = await nordicBoard(cleanups, ['--rate', '200', '--channels', '3', '--si-every-ms', '500']);
    const first = await shell(dataDir);
    const sourceId = `serial:${pty.hostPath}`;
    await first.call('serial.addPath', { path: pty.hostPath });
    await first.call('stream.start', { sourceId });
    await first.call('record.start', { sourceIds: [sourceId], label: 'crash', category: 'training' });
    await new Promise((r) => setTimeout(r, 1500));
    first.client.close();
    first.s.child.kill('SIGKILL');
    await new Promise((r) => first.s.child.once('exit', r));

    const second = await shell(dataDir);
    try {
      const { samples } = await second.call<{ samples: Sample[] }>('samples.list', {});
      expect(samples).toHaveLength(1);
      const s = samples[0]!;
      expect(s).toMatchObject({ label: 'crash', incomplete: true, state: 'local' });
      expect(s.extra['rows']).toBeGreaterThan(100);
      expect(s.lengthMs).toBeCloseTo((s.extra['rows'] as number) * 5, 5);
      const v = decodeAcquisition(await readFile(join(dataDir, s.file)), 'cbor').payload.values;
      const from = Array.from({ length: 5000 }, (_, i) => i).find((q) => v[0]!.every((x, c) => x === onWire(nordicValue(q, c), true)))!;
      v.forEach((row, i) => expect(row).toEqual([0, 1, 2].map((c) => onWire(nordicValue(from + i, c), true))));
      expect(await readdir(join(dataDir, 'recordings'))).toEqual([]);
    } finally {
      second.client.close();
      second.s.child.kill('SIGTERM');
    }
  });
});
