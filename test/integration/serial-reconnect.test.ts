import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StreamBatch } from '../../src-main/core/contract/contract.js';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';

const cleanups = useCleanups();

describe('serial streaming through the core with a real port', () => {
  it('reports an unplug and reconnects by itself when the same board returns', async () => {
    const ptyDir = await mkdtemp(join(tmpdir(), 'cd-replug-'));
    const { pty: first } = await lineBoard(cleanups, ['--rate', '100'], { ptyDir });

    const { core, events } = await startCore(cleanups);
    const sourceId = `serial:${first.hostPath}`;
    expect(await core.dispatch('serial.addPath', { path: first.hostPath })).toMatchObject({ ok: true });
    expect(await core.dispatch('stream.start', { sourceId })).toMatchObject({ ok: true, value: { axes: [{}, {}, {}], simulated: false } });

    const rows = () => events.filter(([n, p]) => n === 'stream.batch' && (p as StreamBatch).sourceId === sourceId).reduce((k, [, p]) => k + (p as StreamBatch).values.length / 3, 0);
    const until = async (pred: () => boolean, ms = 10_000, what = '') => {
      const end = Date.now() + ms;
      while (!pred()) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; events: ${[...new Set(events.map(([n]) => n))].join(', ')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await until(() => rows() > 100, 10_000, 'rows');
    await until(() => events.some(([n, p]) => n === 'stream.stats' && (p as { frequencyHz: number | null }).frequencyHz !== null), 10_000, 'stats');

    await first.close(); // cable out
    await until(() => events.some(([n, p]) => n === 'stream.state' && (p as { state: string; error?: { code: string } }).error?.code === 'Disconnected'), 10_000, 'disconnect');
    const before = rows();

    await lineBoard(cleanups, ['--rate', '100'], { ptyDir }); // same board, same port name
    await until(() => events.filter(([n, p]) => n === 'stream.state' && (p as { state: string }).state === 'started').length >= 2, 15_000, 'restart');
    await until(() => rows() > before + 100, 10_000, 'rows after');
    expect(await core.dispatch('stream.stop', { sourceId })).toMatchObject({ ok: true, value: { stopped: true } });
  }, 40_000);
});
