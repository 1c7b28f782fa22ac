import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { QueueStatus, RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';

const KEY = 'ei_quality';
const cleanups = useCleanups();

async function coreWithPlatform() {
  const srv = await startIngestionServer({ apiKeys: [KEY] });
  cleanups.push(() => srv.close());
  const { call, events } = await startCore(cleanups, { emulator: srv, apiKey: KEY });
  return { srv, call, events };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('data quality through the core, with real boards on PTYs', { timeout: 60_000 }, () => {
  it('a capture with gaps is flagged and held back, uploads only when forced; a clean one from the same session goes straight up', async () => {
    const { srv, call, events } = await coreWithPlatform();

    // One board stalls its loop for 300 ms every second (the readings due then are never sent).
    const { pty: gapped } = await lineBoard(cleanups, ['--rate', '100', '--pause-every', '1000:300']);
    const { pty: clean } = await lineBoard(cleanups, ['--rate', '100']);
    for (const p of [gapped, clean]) {
      await call('serial.addPath', { path: p.hostPath });
      await call('stream.start', { sourceId: `serial:${p.hostPath}` });
    }
    await pause(2500); // the reader settles on the rate before the capture starts
    const st = await call<RecordingStatus>('record.start', { sourceIds: [`serial:${gapped.hostPath}`, `serial:${clean.hostPath}`], label: 'wave', category: 'training', lengthMs: 4000, queue: true });
    // Saved once each source has judged its last reading (about a second after the take): up to
    // 30 s on a loaded machine, and said if not.
    const states = () => events.filter(([n, p]) => n === 'record.state' && (p as RecordingStatus).sessionId === st.sessionId).map(([, p]) => (p as RecordingStatus).state);
    await expect.poll(() => states().at(-1), { timeout: 30_000, interval: 25 }).toBe('saved');
    const list = async (input: object = {}) => (await call<{ samples: Sample[]; total: number }>('samples.list', input));
    const samples = (await list()).samples;
    const bad = samples.find((s) => s.extra.source === `serial:${gapped.hostPath}`)!;
    const good = samples.find((s) => s.extra.source === `serial:${clean.hostPath}`)!;

    expect(bad).toMatchObject({ state: 'local', flagged: 'error', heldBack: true });
    // Which counter shows the stalls depends on how the reader read them: as lost lines (it kept
    // the board's 100 Hz) or as arrivals far off a steady clock (it settled on a lower rate).
    const stall = bad.quality!.findings.find((f) => f.severity === 'error' && ['lost-readings', 'irregular-timing'].includes(f.code))!;
    expect(stall.message).toMatch(/^(Gaps: about \d+ readings \([\d.]+%\) never arrived while recording|Irregular timing: readings arrived \d+ ms away from a steady)/);
    expect(good.quality!.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(good.heldBack).toBe(false);

    // The clean one is sent; the held one is not, however long the queue runs.
    for (let i = 0; i < 400 && srv.samples.length < 1; i++) await pause(25);
    await pause(500);
    expect(srv.samples.map((s) => s.originalName)).toEqual([good.name]);
    expect((await call<QueueStatus>('queue.status')).counts.local).toBe(1);

    // The Flagged filter lists it. The clean board may show a warning too: on a loaded machine the
    // reader can really miss a line or two, which is what the warning is for.
    const flagged = await list({ flagged: true });
    expect(flagged.samples.map((s) => s.id)).toContain(bad.id);
    expect(flagged.samples.filter((s) => s.id !== bad.id).map((s) => s.flagged)).not.toContain('error');
    // Queueing it the ordinary way keeps it held; "Upload anyway" sends it.
    expect(await call('queue.enqueue', { ids: [bad.id] })).toEqual({ queued: 0, held: 1 });
    await pause(300);
    expect(srv.samples).toHaveLength(1);
    expect(await call('queue.enqueue', { ids: [bad.id], force: true })).toEqual({ queued: 1, held: 0 });
    for (let i = 0; i < 400 && srv.samples.length < 2; i++) await pause(25);
    expect(srv.samples.map((s) => s.originalName).sort()).toEqual([good.name, bad.name].sort());
    // The platform has it; the queue marks it uploaded once it has read the answer.
    await expect.poll(async () => (await list()).samples.find((s) => s.id === bad.id)!.state, { timeout: 10_000 }).toBe('uploaded');
    const after = (await list()).samples.find((s) => s.id === bad.id)!;
    expect(after).toMatchObject({ state: 'uploaded', heldBack: false, flagged: 'error' });

    // Checking again with a new minimum length adds a finding and leaves the queue state alone.
    await call('settings.set', { qualityMinLengthMs: 60_000 });
    const { checked } = await call<{ checked: Sample[] }>('samples.checkQuality', { ids: [good.id] });
    expect(checked[0]!.quality!.findings.map((f) => f.code)).toContain('too-short');
    expect(checked[0]).toMatchObject({ state: 'uploaded', flagged: 'error' });
  }, 40_000);

  it('files dropped on the window and files arriving in a watched folder are checked and held the same way', async () => {
    const { srv, call } = await coreWithPlatform();
    const rows = (n: number, f: (i: number) => number[]) => Array.from({ length: n }, (_, i) => f(i));
    const good = () => encodeCbor(sensorDoc(rows(200, (i) => [Math.sin(i / 5), Math.cos(i / 7)])));
    const dead = () => encodeCbor(sensorDoc(rows(200, () => [0, 0]))); // 2 s of a sensor that sends nothing
    const dropped = await call<Sample>('samples.addFile', { name: 'dead.1.cbor', bytes: new Uint8Array(dead()), category: 'training', queue: true });
    expect(dropped).toMatchObject({ state: 'local', flagged: 'error', heldBack: true });
    expect(dropped.quality!.findings[0]!.message).toMatch(/^Flat line: every axis holds one value/);

    const folder = await mkdtemp(join(tmpdir(), 'cd-quality-watch-'));
    await call('watch.add', { path: folder, category: 'training', label: { mode: 'filename' }, metadata: {} });
    await writeFile(join(folder, 'idle.1.cbor'), good());
    await writeFile(join(folder, 'idle.2.cbor'), dead());
    for (let i = 0; i < 600 && srv.samples.length < 1; i++) await pause(25);
    await pause(1500); // the dead one would have followed by now
    expect(srv.samples.map((s) => s.originalName)).toEqual(['idle.1.cbor']);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', { flagged: true });
    expect(samples.map((s) => [s.name, s.state, s.heldBack]).sort()).toEqual([['dead.1.cbor', 'local', true], ['idle.2.cbor', 'local', true]]);
  }, 30_000);
});
