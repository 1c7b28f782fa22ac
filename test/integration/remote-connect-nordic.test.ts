import { afterEach, describe, expect, it } from 'vitest';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { nordicBoard } from '../support/boards/board-on-pty.js';
import { nordicValue, onWire } from '../support/boards/nordic-wire.mjs';
import { socatAvailable } from '../support/boards/pty.js';
import { listSamples, startConnect, startPlatform, type Cleanups, type Platform } from '../support/connect-run.js';

/**
 * `capture-desk connect --port` with a Nordic data-forwarder board (the PTY emulator): the hello
 * offers the board's own rate and channel names at once, and a take the platform asks for is the
 * board's samples in seq order, counted exactly, its known gaps kept with it.
 */
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!socatAvailable())('capture-desk connect: a Nordic board', { timeout: 45_000 }, () => {
  for (const mode of [[], ['--mode', 'nordic']]) {
    it(`hello with the board's hz and names; start-sampling takes exact samples with known gaps (${mode.length ? '--mode nordic' : 'told from the stream'})`, async () => {
      const p = await startPlatform(cleanups);
      const b = await nordicBoard(cleanups, ['--rate', '250', '--channels', '6', '--si-every-ms', '500', '--lose-every', '400:2']);
      const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, ...mode]);
      const hello = await c.waitEvent((e) => e.event === 'connected');
      expect(hello).toMatchObject({ sensors: [{ name: 'Sensor with 6 axes (ax, ay, az, gx, gy, gz)', frequencies: [250] }] });
      const sensor = (hello.sensors as Array<{ name: string }>)[0]!;
      const id = hello.device_id as string;
      expect(await p.startSampling(id, { label: 'tag', lengthMs: 2000, category: 'training', intervalMs: 4, sensor: sensor.name })).toMatchObject({ success: true });
      // Under 1 % lost: a warning of the quality check (it holds a take back above that, saying
      // "Gaps: 7 samples lost at 0.756 s and 7 at 1.956 s (14 in all), 0 dropped by the board …").
      const saved = await c.waitEvent((e) => e.event === 'sample-saved');
      await c.waitEvent((e) => e.event === 'sample-finished');
      expect(await c.stop('SIGINT')).toBe(0);
      const [local] = await listSamples(c.dataDir);
      expect(local).toMatchObject({ id: saved.sample_id, label: 'tag', incomplete: false });
      const extra = local as Record<string, unknown>; // the JSON line carries the capture facts (extra) at its top level
      expect(extra).toMatchObject({ rows: 500, interval_ms: 4, protocol: 'nordic' });
      const values = decodeAcquisition(p.ingestion.samples[0]!.bytes, 'cbor').payload.values;
      expect(values).toHaveLength(500);
      // Every row is the board's next sample after the known gaps, none filled.
      const gaps = extra['gaps'] as Array<{ at_s: number; count: number }>;
      expect(extra['lost_samples']).toBe(gaps.reduce((n, g) => n + g.count, 0));
      let seq = Array.from({ length: 100_000 }, (_, i) => i).find((s) => values[0]!.every((v, ch) => v === onWire(nordicValue(s, ch), true)))!;
      const first = seq;
      const found: Array<{ at_s: number; count: number }> = [];
      values.forEach((row, k) => {
        let skipped = 0;
        while (!row.every((v, ch) => v === onWire(nordicValue(seq, ch), true))) {
          seq++;
          skipped++;
          expect(skipped).toBeLessThan(50);
        }
        if (skipped) found.push({ at_s: Math.round(((seq - skipped - first) / 250) * 1000) / 1000, count: skipped });
        seq++;
        void k;
      });
      expect(gaps.map((g) => ({ at_s: g.at_s, count: g.count }))).toEqual(found);
    });
  }

  /** A platform take of `lengthMs` from a 100 Hz Nordic board that restarts a second into it. */
  async function restartedTake(lengthMs: number, before?: (p: Platform) => void) {
    const p = await startPlatform(cleanups);
    const b = await nordicBoard(cleanups, ['--rate', '100', '--channels', '3', '--si-every-ms', '300']);
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath]);
    const hello = await c.waitEvent((e) => e.event === 'connected');
    const sensor = (hello.sensors as Array<{ name: string }>)[0]!;
    before?.(p);
    expect(await p.startSampling(hello.device_id as string, { label: 'reboot', lengthMs, category: 'training', intervalMs: 10, sensor: sensor.name })).toMatchObject({ success: true });
    await c.waitEvent((e) => e.event === 'sample-requested');
    await new Promise((r) => setTimeout(r, 1000));
    b.child.kill('SIGUSR2'); // the board restarts at its next sample (nordic-board.mjs)
    return { p, c, hello };
  }

  it('a board that restarts during a platform take: both parts uploaded, each in order, both stored when the platform hears "finished"', async () => {
    const { p, c } = await restartedTake(3000);
    // What the platform has stored the moment it hears "finished":
    const storedAtFinish = p.remote.waitFor((m) => m.dir === 'in' && 'sampleFinished' in m.message, 30_000).then(() => p.ingestion.samples.length);
    const finished = await c.waitEvent((e) => e.event === 'sample-finished', 30_000);
    expect(await storedAtFinish).toBe(2);
    expect(finished.sample_ids as string[]).toHaveLength(2);
    expect(finished.sample_id).toBe((finished.sample_ids as string[])[0]);
    expect(await c.stop('SIGINT')).toBe(0);
    const local = (await listSamples(c.dataDir)) as Array<Record<string, unknown>>;
    expect(local.map((s) => s['state']).sort()).toEqual(['uploaded', 'uploaded']);
    expect(local.map((s) => s['rows'] as number).reduce((a, x) => a + x)).toBe(300);
    expect(local.map((s) => s['part']).sort()).toEqual([1, 2]);
    // The second part starts at the new session's first samples: seq 0 onward, in order.
    const second = local.find((s) => s['part'] === 2)!;
    const bytes = p.ingestion.samples.find((s) => decodeAcquisition(s.bytes, 'cbor').payload.values.length === second['rows'])!.bytes;
    const values = decodeAcquisition(bytes, 'cbor').payload.values;
    const from = Array.from({ length: 100 }, (_, i) => i).find((s) => values[0]!.every((v, ch) => v === onWire(nordicValue(s, ch), true)))!;
    expect(from).toBeDefined();
    values.forEach((row, k) => expect(row).toEqual([0, 1, 2].map((ch) => onWire(nordicValue(from + k, ch), true))));
  });

  it('a restarted take whose second part the platform refuses: the platform hears the take failed, naming the part, not "finished"', async () => {
    // Files over 7 KB are refused one by one (files[].success false): the first part (~1 s, ~3-4 KB)
    // goes in, the second (~4 s, ~10 KB) does not.
    const { p, hello } = await restartedTake(5000, (p) => p.ingestion.setFaults({ maxFileBytes: 7000 }));
    const failed = await p.remote.waitFor((m) => m.dir === 'in' && (m.message as { sample?: unknown }).sample === false, 40_000);
    expect((failed.message as { error: string }).error).toMatch(/^Part 2 of 2 \(the board restarted during the take\): /);
    expect(p.log(hello.device_id as string).some((m) => m.type === 'sampleFinished')).toBe(false);
    expect(p.ingestion.samples).toHaveLength(1);
  });
});
