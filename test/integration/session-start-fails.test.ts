import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sample } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { simulatedImuRow } from '../../src-main/core/stream/simulated-imu.js';
import { openPtyPair } from '../support/boards/pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';

// Issue 13: a session whose second source fails to start must not throw away what the first one
// already recorded. The second source here is a real port whose board is plugged in but silent, so
// it fails only after its 5 s wait for numeric lines, while the simulator records.
const cleanups = useCleanups();

async function setup() {
  const { call, dataDir } = await startCore(cleanups, { uploads: false });
  const pty = await openPtyPair(); // nothing on the board end: the board says nothing
  cleanups.push(() => pty.close());
  await call('serial.addPath', { path: pty.hostPath });
  return { call, dataDir, silent: `serial:${pty.hostPath}` };
}

describe('a recording session that fails to start', () => {
  it('keeps what the sources that had started recorded, as an incomplete local sample saying why', async () => {
    const { call, dataDir, silent } = await setup();
    await call('keys.set', { kind: 'hmac-key', key: 'lab-hmac' });
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const err = await call('record.start', { sourceIds: ['simulated:imu', silent], label: 'door', category: 'training', metadata: { bench: 'b1' } }).then(() => null, (e: unknown) => e as Error & { code: string });
    expect(err?.code).toBe('Unavailable');
    expect(err?.message).toMatch(/^No numeric lines from .* within \d+ s: .*\. What simulated:imu recorded meanwhile is kept as an incomplete local sample\.$/);

    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    expect(samples).toHaveLength(1);
    const s = samples[0]!;
    expect(s).toMatchObject({ label: 'door', category: 'training', state: 'local', incomplete: true, metadata: { bench: 'b1' } });
    expect(s.note).toMatch(/^incomplete: the recording session could not start because serial:.* failed \(No numeric lines.*\); this is what simulated:imu recorded while the others were starting/);
    // About the 5 s the other source took to fail, every row consecutive: nothing dropped.
    const values = decodeAcquisition(await readFile(join(dataDir, s.file)), 'cbor').payload.values;
    expect(values.length).toBe(s.extra.rows);
    expect(values.length).toBeGreaterThan(800);
    const row = new Float32Array(3);
    const first = Array.from({ length: 20_000 }, (_, i) => i).find((i) => (simulatedImuRow(i, 200, row, 0), Math.fround(row[0]!) === Math.fround(values[0]![0]!)))!;
    expect(first).toBeDefined();
    values.forEach((v, k) => {
      simulatedImuRow(first + k, 200, row, 0);
      expect(v.map((x) => Math.fround(x))).toEqual(Array.from(row));
    });
  }, 30_000);

  it('keeps nothing and says only why when the first source fails (nothing was recorded)', async () => {
    const { call, silent } = await setup();
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const err = await call('record.start', { sourceIds: [silent, 'simulated:imu'], label: 'door', category: 'training' }).then(() => null, (e: unknown) => e as Error);
    expect(err?.message).toMatch(/^No numeric lines from .* within \d+ s/);
    expect(err?.message).not.toMatch(/kept/);
    expect((await call<{ samples: Sample[] }>('samples.list', {})).samples).toEqual([]);
  }, 30_000);
});
