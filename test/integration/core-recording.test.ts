import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition, verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { simulatedImuRow } from '../../src-main/core/stream/simulated-imu.js';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const cleanups = useCleanups();

describe('recording through the contract', () => {
  it('records the simulated sensor for a set length into a signed, queued sample', async () => {
    const { call, saved, dataDir } = await startCore(cleanups);
    await call('keys.set', { kind: 'hmac-key', key: 'lab-hmac' });
    // Held still, so the sample is seen queued rather than caught in an attempt to upload.
    await call('queue.pause', {});
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'wave', category: 'training', lengthMs: 1000, metadata: { subject: 'ana' } });
    expect(st.state).toBe('recording');
    const done = await saved(st.sessionId);
    expect(done).toMatchObject({ state: 'saved', error: null });
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const s = samples.find((x) => x.id === done.sampleIds[0])!;
    // Queued, and not held back: a clean capture.
    expect(s).toMatchObject({ label: 'wave', category: 'training', state: 'queued', incomplete: false, heldBack: false, flagged: null, metadata: { subject: 'ana', session: st.sessionId } });
    const bytes = await readFile(join(dataDir, s.file));
    expect(verifyAcquisitionSignature(bytes, 'lab-hmac')).toBe(true);
    const msg = decodeAcquisition(bytes, 'cbor');
    expect(msg.payload.interval_ms).toBe(5);
    // 1000 ms at 200 Hz: exactly 200 readings, counted, whenever the host's timer fired.
    expect(msg.payload.values.length).toBe(200);
    // The rows are consecutive simulator rows: nothing dropped between stream and file.
    const row = new Float32Array(3);
    const first = Array.from({ length: 5000 }, (_, i) => i).find((i) => (simulatedImuRow(i, 200, row, 0), Math.fround(row[0]!) === Math.fround(msg.payload.values[0]![0]!)))!;
    msg.payload.values.forEach((v, k) => {
      simulatedImuRow(first + k, 200, row, 0);
      expect(v.map((x) => Math.fround(x))).toEqual(Array.from(row));
    });
  });

  it('a take that starts the board itself (its rate not measured yet) still holds exactly its length, and counts its own losses', async () => {
    const { call, saved } = await startCore(cleanups);
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    await call('serial.addPath', { path: pty.hostPath });
    const serial = `serial:${pty.hostPath}`;
    // No stream.start: the take opens the port, detects the columns and measures the rate as it goes.
    const st = await call<RecordingStatus>('record.start', { sourceIds: [serial], label: 'cold', category: 'training', lengthMs: 3000, queue: false });
    const done = await saved(st.sessionId);
    expect(done.error).toBeNull();
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const s = samples.find((x) => x.id === done.sampleIds[0])!;
    const hz = s.extra.frequency_hz as number;
    expect(Math.abs(hz / 100 - 1)).toBeLessThan(0.01);
    // Exactly round(3000 ms × the rate it was counted at) rows: not 3 (a 1 Hz placeholder), not 300 plus what came late.
    expect(s.extra.rows).toBe(Math.round(3000 * hz / 1000));
    expect(s.extra.dropped_lines).toBe(0);
    expect(s.incomplete).toBe(false);
  });

  it('records two sources in one session (simulated + a board on a PTY) until stopped', async () => {
    const { call, saved } = await startCore(cleanups);
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    await call('serial.addPath', { path: pty.hostPath });
    const serial = `serial:${pty.hostPath}`;
    await call('stream.start', { sourceId: serial });
    const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu', serial], label: 'door', category: 'testing', queue: false });
    await expect(call('record.start', { sourceIds: [serial], label: 'x', category: 'training' })).rejects.toMatchObject({ code: 'Busy' });
    await new Promise((r) => setTimeout(r, 1500));
    const stopped = await call<RecordingStatus>('record.stop', { sessionId: st.sessionId });
    expect(stopped.state).toBe('saved');
    expect((await saved(st.sessionId)).sampleIds).toHaveLength(2);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    expect(samples.map((s) => [s.label, s.category, s.state, s.metadata.session])).toEqual([
      ['door', 'testing', 'local', st.sessionId],
      ['door', 'testing', 'local', st.sessionId],
    ]);
    expect(samples.every((s) => (s.extra.rows as number) > 50)).toBe(true);
  });

  it('saves events marked while recording as structured labels, and uploads them in an info.labels file', async () => {
    const srv = await startIngestionServer({ apiKeys: ['ei_marks'] });
    cleanups.push(() => srv.close());
    const { call, saved } = await startCore(cleanups, { emulator: srv, apiKey: 'ei_marks' });
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'idle', category: 'training', queue: true });
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await expect(call('record.mark', { sessionId: st.sessionId, label: null })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await pause(300);
    const marked = await call<RecordingStatus>('record.mark', { sessionId: st.sessionId, label: 'tap' });
    expect(marked.events).toEqual([{ label: 'tap', startMs: expect.any(Number), endMs: null }]);
    await pause(300);
    await call('record.mark', { sessionId: st.sessionId, label: 'shake' }); // ends "tap", starts "shake"
    await pause(300);
    await call('record.mark', { sessionId: st.sessionId, label: null });
    await pause(300);
    const stopped = await call<RecordingStatus>('record.stop', { sessionId: st.sessionId });
    expect(stopped.events.map((e) => [e.label, e.endMs !== null])).toEqual([['tap', true], ['shake', true]]);
    const done = await saved(st.sessionId);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const s = samples.find((x) => x.id === done.sampleIds[0])!;
    const rows = s.extra.rows as number;
    const labels = s.structuredLabels!;
    // The whole sample is covered, in order, without overlaps; gaps carry the sample's label.
    expect(labels.map((l) => l.label)).toEqual(['idle', 'tap', 'shake', 'idle']);
    expect(labels[0]!.startIndex).toBe(0);
    expect(labels.at(-1)!.endIndex).toBe(rows - 1);
    for (let i = 1; i < labels.length; i++) expect(labels[i]!.startIndex).toBe(labels[i - 1]!.endIndex + 1);
    // ~300 ms at 200 Hz each; timers on a busy machine are loose, the order and rough size are not.
    for (const l of labels.slice(1, 3)) expect(l.endIndex - l.startIndex + 1).toBeGreaterThan(30);
    // Uploaded with its events: the platform's copy carries the same structured labels.
    for (let i = 0; i < 200 && srv.samples.length === 0; i++) await pause(50);
    expect(srv.samples).toHaveLength(1);
    expect(srv.samples[0]!.structuredLabels).toEqual(labels);
  });

  it('a port added by path is not forgotten while a take records from it; after the take it is, its stream ended', async () => {
    const { call, saved } = await startCore(cleanups);
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    await call('serial.addPath', { path: pty.hostPath });
    const serial = `serial:${pty.hostPath}`;
    await call('stream.start', { sourceId: serial });
    const st = await call<RecordingStatus>('record.start', { sourceIds: [serial], label: 'kept', category: 'training', queue: false });
    await expect(call('serial.removePath', { path: pty.hostPath })).rejects.toMatchObject({ code: 'Busy', message: `A take is recording from ${pty.hostPath}; stop it before forgetting the port.` });
    await new Promise((r) => setTimeout(r, 500));
    await call('record.stop', { sessionId: st.sessionId });
    expect((await saved(st.sessionId)).sampleIds).toHaveLength(1);
    await call('serial.removePath', { path: pty.hostPath });
    const sources = await call<Array<{ id: string; streaming: boolean }>>('sources.list', {});
    expect(sources.map((x) => x.id)).not.toContain(serial);
    await expect(call('stream.stop', { sourceId: serial })).resolves.toEqual({ stopped: false });
  });

  it('refuses a source that is not there, with a typed error', async () => {
    const { call } = await startCore(cleanups);
    await expect(call('record.start', { sourceIds: ['serial:/dev/nope'], label: null, category: 'training' })).rejects.toMatchObject({ code: 'NotFound' });
    await expect(call('record.stop', { sessionId: 'nope' })).rejects.toMatchObject({ code: 'NotFound' });
  });
});
