import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordingStatus, Sample, StreamInfo } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { nordicBoard } from '../support/boards/board-on-pty.js';
import { nordicValue, onWire } from '../support/boards/nordic-wire.mjs';
import { playTone, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { startCore, useCaptureWorker, useCleanups } from '../support/core-harness.js';
import { boardAndMicrophoneTake } from '../support/session-takes.js';

const cleanups = useCleanups();
const worker = useCaptureWorker();

describe('a Nordic board in the app (through the contract)', () => {
  it('Record across a board restart: two samples, one per session, the set length counted over both, each part in order', async () => {
    const { call, saved, dataDir } = await startCore(cleanups);
    const { pty } = await nordicBoard(cleanups, ['--start-ms', '800', '--rate', '200', '--channels', '3', '--si-every-ms', '300', '--reboot-at', '500']);
    await call('serial.addPath', { path: pty.hostPath });
    const id = `serial:${pty.hostPath}`;
    const info = await call<StreamInfo>('stream.start', { sourceId: id });
    expect(info).toMatchObject({ rateHz: 200, axes: [{ name: 'ax', units: 'm/s2' }, { name: 'ay', units: 'm/s2' }, { name: 'az', units: 'm/s2' }] });
    const st = await call<RecordingStatus>('record.start', { sourceIds: [id], label: 'tag', category: 'training', lengthMs: 4000, queue: false });
    // Events marked as a person would: one at once (before the restart), one left open from 3.2 s (after it).
    await call('record.mark', { sessionId: st.sessionId, label: 'tap' });
    await new Promise((r) => setTimeout(r, 100));
    await call('record.mark', { sessionId: st.sessionId, label: null });
    await new Promise((r) => setTimeout(r, 3100));
    await call('record.mark', { sessionId: st.sessionId, label: 'shake' });
    const done = await saved(st.sessionId);
    expect(done).toMatchObject({ state: 'saved', error: null });
    expect(done.sampleIds).toHaveLength(2);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const parts = done.sampleIds.map((sid) => samples.find((s) => s.id === sid)!);
    expect(parts.map((s) => s.extra.rows as number).reduce((a, b) => a + b)).toBe(800);
    expect(parts[0]!.note).toMatch(/part 1 of 2 of one take: the board restarted after it/);
    expect(parts[1]!.note).toMatch(/part 2 of 2 of one take/);
    expect(parts.every((s) => !s.incomplete && s.extra.protocol === 'nordic' && s.extra.lost_samples === 0)).toBe(true);
    // Each part carries the events of its own rows, from its first row, covering all of them.
    for (const s of parts) {
      const l = s.structuredLabels!;
      expect(l[0]!.startIndex).toBe(0);
      expect(l.at(-1)!.endIndex).toBe((s.extra.rows as number) - 1);
      l.slice(1).forEach((x, i) => expect(x.startIndex).toBe(l[i]!.endIndex + 1));
    }
    const tap = parts[0]!.structuredLabels!.find((x) => x.label === 'tap')!;
    expect(tap.startIndex).toBeLessThan(60);
    expect(parts[1]!.structuredLabels!.at(-1)!.label).toBe('shake');
    expect(parts[1]!.structuredLabels!.some((x) => x.label === 'tap')).toBe(false);
    for (const [k, s] of parts.entries()) {
      const v = decodeAcquisition(await readFile(join(dataDir, s.file)), 'cbor').payload.values;
      const from = Array.from({ length: 2000 }, (_, i) => i).find((q) => v[0]!.every((x, c) => x === onWire(nordicValue(q, c), true)))!;
      if (k === 1) expect(from).toBe(0); // the new session starts at seq 0
      else expect(from + v.length).toBe(500); // the first part ends at the restart
      v.forEach((row, i) => expect(row).toEqual([0, 1, 2].map((c) => onWire(nordicValue(from + i, c), true))));
    }
  });
});

describe('a Nordic board beside a microphone', () => {
  it('a session with a cold microphone: the board\'s take begins with the microphone\'s, not while it warms up, and holds exactly its length in samples', async () => {
    const server = testPulseFromEnv();
    const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 440, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const { call, saved, dataDir } = await startCore(cleanups, { audio: { workerPath: worker(), env: server.env } });
    const { pty } = await nordicBoard(cleanups, ['--rate', '200', '--channels', '3', '--si-every-ms', '300']);
    await call('serial.addPath', { path: pty.hostPath });
    const id = `serial:${pty.hostPath}`;
    await call('stream.start', { sourceId: id });
    const { done, board, mic, boardAt, micAt } = await boardAndMicrophoneTake({ call, saved }, { sourceIds: ['audio:default', id], lengthMs: 1000, boardHz: 200 });
    expect(done).toMatchObject({ state: 'saved', error: null });
    expect(board.extra).toMatchObject({ rows: 200, protocol: 'nordic', lost_samples: 0 });
    expect(mic.extra).toMatchObject({ rows: 16_000 });
    // Marked right after the session started: near the start of both takes, the same moment in each.
    expect(Math.abs(boardAt - micAt), `board mark at ${boardAt} s, microphone mark at ${micAt} s`).toBeLessThan(0.1);
    // The take's rows are the board's samples in order, with none missing.
    const v = decodeAcquisition(await readFile(join(dataDir, board.file)), 'cbor').payload.values;
    const from = Array.from({ length: 20_000 }, (_, i) => i).find((q) => v[0]!.every((x, c) => x === onWire(nordicValue(q, c), true)))!;
    v.forEach((row, i) => expect(row).toEqual([0, 1, 2].map((c) => onWire(nordicValue(from + i, c), true))));
  }, 60_000);
});

describe('several Nordic boards at once', () => {
  it('two boards (different rates, channels, CRC and value forms) stream side by side and record in one session', async () => {
    const { call, saved } = await startCore(cleanups);
    const a = await nordicBoard(cleanups, ['--rate', '250', '--channels', '6', '--si-every-ms', '500']);
    const b = await nordicBoard(cleanups, ['--rate', '100', '--channels', '9', '--crc', 'off', '--values', 'float', '--lengths', 'definite', '--si-every-ms', '500', '--name', 'second']);
    const ids = [a, b].map((x) => `serial:${x.pty.hostPath}`);
    for (const x of [a, b]) await call('serial.addPath', { path: x.pty.hostPath });
    const infos = await Promise.all(ids.map((sourceId) => call<StreamInfo>('stream.start', { sourceId })));
    expect(infos.map((i) => [i.rateHz, i.axes.length])).toEqual([[250, 6], [100, 9]]);
    const st = await call<RecordingStatus>('record.start', { sourceIds: ids, label: 'pair', category: 'testing', lengthMs: 2000, queue: false });
    const done = await saved(st.sessionId);
    expect(done.sampleIds).toHaveLength(2);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const rows = done.sampleIds.map((sid) => samples.find((s) => s.id === sid)!.extra.rows as number);
    expect(rows.sort((x, y) => x - y)).toEqual([200, 500]);
  });
});
