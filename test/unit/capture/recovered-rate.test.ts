import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { measureRecordedRate, RATE_MISSING_NOTE, TIMING_RECORD_BYTES, TimingLog } from '../../../src-main/core/capture/recorded-rate.js';
import { recoverRecordings } from '../../../src-main/core/capture/recording-recovery.js';
import { completeRows } from '../../../src-main/core/capture/recording-rows.js';
import { RecordingService } from '../../../src-main/core/capture/recording-service.js';
import { setSampleRate } from '../../../src-main/core/capture/set-rate.js';
import { StreamRecording } from '../../../src-main/core/capture/stream-recording.js';
import { systemClock, type Clock } from '../../../src-main/core/clock.js';
import type { Sample } from '../../../src-main/core/contract/contract.js';
import { EventBus } from '../../../src-main/core/event-bus.js';
import { createLogger } from '../../../src-main/core/log.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import type { ByteLink, SerialOpener } from '../../../src-main/core/serial/byte-link.js';
import { createLineReader } from '../../../src-main/core/serial/line-reader.js';
import type { LineReaderPort } from '../../../src-main/core/serial/line-reader-port.js';
import { DEFAULT_PORT_SETTINGS } from '../../../src-main/core/serial/port-registry.js';
import { serialLinesFactory } from '../../../src-main/core/serial/serial-lines-source.js';
import { StreamHub } from '../../../src-main/core/stream/stream-hub.js';
import { prng } from '../../support/seeded-random.mjs';

const log = createLogger(() => {});
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Board {
  rateHz: number;
  /** The sketch prints what is due every this many ms (line-board.mjs --burst-ms). */
  burstMs: number;
  /** The board's crystal: its true rate is rateHz × (1 + skew). */
  skew?: number;
  /** Lines given as lost in transit (indices never delivered). */
  lost?: Set<number>;
  /** Every Nth line arrives as NaN (a rejected reading that still came at its time). */
  nanEvery?: number;
  seed: number;
}

/**
 * A "print values over serial" board as the host sees it: the sketch wakes every burstMs (a
 * little late now and then), prints the lines due, and each chunk reaches the host after a USB
 * latency of 0.2–1.7 ms. Yields chunks with their arrival time.
 */
function* chunks(b: Board): Generator<{ atMs: number; text: string }> {
  const rnd = prng(b.seed);
  const rate = b.rateHz * (1 + (b.skew ?? 0));
  let line = 0;
  let lastAt = 0;
  // The port opens mid-line: the first chunk starts with the tail of a line.
  let text = '25,-1\r\n';
  for (let k = 1; ; k++) {
    const wake = k * b.burstMs + (rnd() < 0.1 ? rnd() * 2 : rnd() * 0.3);
    const due = Math.floor((wake * rate) / 1000);
    for (; line < due; line++) {
      if (b.lost?.has(line)) continue;
      text += b.nanEvery && line % b.nanEvery === b.nanEvery - 1 ? 'nan,nan,nan\r\n' : `${line},${-line},${(line % 97) / 8}\r\n`;
    }
    if (!text) continue;
    lastAt = Math.max(lastAt + 0.01, wake + 0.2 + rnd() * 1.5);
    yield { atMs: lastAt, text };
    text = '';
  }
}

/**
 * The app's serial source for a simulated board on a simulated clock. `start()` opens it and lets it
 * settle on the line width after a few lines, as `record serial` does; `feedUntil(ms)` then delivers
 * the board's chunks up to that time.
 */
function simulatedPort(b: Board, settings: typeof DEFAULT_PORT_SETTINGS) {
  const now = { t: 0 };
  const clock: Clock = { now: () => now.t, every: systemClock.every };
  let deliver: ((b: Buffer) => void) | null = null;
  const link: ByteLink = {
    path: '/dev/sim',
    onData: (cb) => ((deliver = cb), () => undefined),
    onClose: () => () => undefined,
    write: async () => undefined,
    setBaudRate: async () => undefined,
    close: async () => undefined,
  };
  const opener: SerialOpener = { open: async () => link, exists: async () => true };
  const bus = new EventBus();
  const hub = new StreamHub(bus, clock);
  let reader: LineReaderPort | null = null;
  hub.register('serial:', serialLinesFactory({ registry: { settingsFor: () => settings }, opener, clock, log, createReader: (r) => (reader = createLineReader(r)) }));
  cleanups.push(() => hub.stopAll());
  const board = chunks(b);
  const feedUntil = (ms: number) => {
    for (;;) {
      const c = board.next().value!;
      now.t = c.atMs;
      deliver!(Buffer.from(c.text));
      if (c.atMs >= ms) return;
    }
  };
  const sourceId = 'serial:/dev/sim';
  return {
    now, bus, hub, sourceId, feedUntil,
    reader: () => reader!,
    async start() {
      const starting = hub.start(sourceId);
      while (!deliver) await new Promise((r) => setImmediate(r));
      feedUntil(60);
      await starting;
    },
  };
}

/**
 * The serial source, hub and recorder the app and `record serial` use, fed by a simulated board
 * on a simulated clock; "killed" `killAtMs` after the recording started (nothing finishes it),
 * then recovered as the next start would.
 */
async function recordAndKill(b: Board, killAtMs: number, o: { frequencyHz?: number } = {}): Promise<{ sample: Sample; headerIntervalMs: number; rows: number; liveHz: number | null; store: SampleStore }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cd-rate-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const port = simulatedPort(b, { ...DEFAULT_PORT_SETTINGS, frequencyHz: o.frequencyHz ?? null });
  const { now, hub, sourceId, feedUntil } = port;
  await port.start();
  const store = await SampleStore.open(dataDir, log);
  cleanups.push(() => store.close());
  const rec = await StreamRecording.start(hub, store, { sourceId, label: 'k', category: 'training', metadata: {}, deviceType: 'SERIAL_LINES' });
  cleanups.push(() => rec.discard());
  const t0 = now.t;
  feedUntil(t0 + killAtMs);
  const rows = rec.rows;
  // What `record serial` would have written at Stop (the reader's own estimate).
  const liveHz = port.reader().snapshot().frequencyHz;
  // What a kill -9 leaves: every row the recorder had handed to the file system by then.
  const [headerName] = (await readdir(join(dataDir, 'recordings'))).filter((f) => f.endsWith('.json'));
  const rowsFile = join(dataDir, 'recordings', headerName!.replace(/\.json$/, '.rows'));
  await expect.poll(async () => completeRows(await readFile(rowsFile), 3).rows, { timeout: 5000 }).toBe(rows);
  const header = JSON.parse(await readFile(rowsFile.replace(/\.rows$/, '.json'), 'utf8')) as { context: { intervalMs: number } };
  const [sample, ...more] = await recoverRecordings(store, log, async () => undefined);
  expect(more).toEqual([]);
  return { sample: sample!, headerIntervalMs: header.context.intervalMs, rows, liveHz, store };
}

const relErr = (intervalMs: number, b: Board) => intervalMs / (1000 / (b.rateHz * (1 + (b.skew ?? 0)))) - 1;

/** The app's path: a session of the recording service, stopped (not killed) at `stopAtMs`. */
async function recordInApp(b: Board, stopAtMs: number): Promise<Sample> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cd-rate-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const port = simulatedPort(b, { ...DEFAULT_PORT_SETTINGS });
  const { bus, hub, sourceId, feedUntil } = port;
  const store = await SampleStore.open(dataDir, log);
  cleanups.push(() => store.close());
  const service = new RecordingService({ hub, store, bus, log, deviceName: () => 'test', hmacKey: async () => undefined, onSaved: () => {} });
  await port.start();
  // The stream runs a while before Record is pressed; the source reports its stats every 500 ms.
  feedUntil(1000);
  await new Promise((r) => setTimeout(r, 600));
  const { sessionId } = await service.start({ sourceIds: [sourceId], label: 'app', category: 'training', queue: false });
  feedUntil(1000 + stopAtMs);
  await new Promise((r) => setTimeout(r, 600));
  const done = await service.stop(sessionId);
  expect(done.state, done.error ?? '').toBe('saved');
  return store.get(done.sampleIds[0]!);
}

describe('a recording killed mid-take is recovered with its measured rate', () => {
  it('reproduces: the header carries the rate measured from the first few lines', async () => {
    const b: Board = { rateHz: 100, burstMs: 10, seed: 7 };
    const { sample, headerIntervalMs } = await recordAndKill(b, 4000);
    // The early estimate is what the header holds; recovery must not take it as the rate.
    expect(Math.abs(relErr(headerIntervalMs, b))).toBeGreaterThan(0.005);
    expect(Math.abs(relErr(sample.extra['interval_ms'] as number, b))).toBeLessThan(0.005);
  });

  const boards: Array<[string, Board]> = [
    ['62.5 Hz', { rateHz: 62.5, burstMs: 10, seed: 1 }],
    ['100 Hz', { rateHz: 100, burstMs: 10, seed: 2 }],
    ['1000 Hz (10 lines a chunk)', { rateHz: 1000, burstMs: 10, seed: 3 }],
    ['100 Hz bursty (25 lines every 250 ms)', { rateHz: 100, burstMs: 250, seed: 4 }],
    ['104 Hz board 0.4 % fast, with lost and NaN lines', { rateHz: 104, burstMs: 10, skew: 0.004, lost: new Set([300, 301, 302, 800, 1500]), nanEvery: 40, seed: 5 }],
  ];
  for (const [name, b] of boards) {
    it(`${name}: within 0.5 % of the true interval wherever the kill falls, as the finished take would have been`, async () => {
      for (const killAtMs of [1500, 4000, 12_000]) {
        const { sample, headerIntervalMs, rows, liveHz } = await recordAndKill(b, killAtMs);
        const got = sample.extra['interval_ms'] as number;
        const err = relErr(got, b);
        if (process.env['SHOW_RATES']) console.log(`${name}, kill at ${killAtMs} ms: ${rows} rows, header ${(relErr(headerIntervalMs, b) * 100).toFixed(2)} %, recovered ${(err * 100).toFixed(3)} %, live ${liveHz ? ((relErr(1000 / liveHz, b)) * 100).toFixed(3) : '-'} %`);
        expect(Math.abs(err), `kill at ${killAtMs} ms`).toBeLessThan(0.005);
        expect(sample).toMatchObject({ incomplete: true, state: 'local', lengthMs: sample.extra['rows'] as number * got });
        expect(sample.extra).toMatchObject({ recovered: true, rate_measured_at_recovery: true });
        // The rate the reader had at that moment, from (nearly) the same rows.
        expect(Math.abs((1000 / got) / liveHz! - 1)).toBeLessThan(0.002);
      }
    });
  }
});

describe('what recovery does not re-measure, or cannot', () => {
  it('keeps a rate the person gave (--frequency, port settings) as given, and keeps no arrival times for it', async () => {
    const b: Board = { rateHz: 100, burstMs: 10, skew: 0.004, seed: 11 };
    const { sample, headerIntervalMs } = await recordAndKill(b, 3000, { frequencyHz: 100 });
    expect(headerIntervalMs).toBe(10);
    expect(sample.extra['interval_ms']).toBe(10);
    expect(sample.extra['rate_measured_at_recovery']).toBeUndefined();
  });

  it('says in the note when the rate was measured from a short stretch', async () => {
    const b: Board = { rateHz: 62.5, burstMs: 10, seed: 12 };
    const { sample } = await recordAndKill(b, 400);
    expect(sample.note).toMatch(/^incomplete: the app stopped during this recording; recovered at the next start\./);
    expect(sample.note).toMatch(/Its rate \(6\d\.\d{3} Hz\) was measured from a short stretch, the \d+ rows that arrived in 0\.\d s, so it may be off by about [\d.]+ %\./);
    expect(Math.abs(relErr(sample.extra['interval_ms'] as number, b))).toBeLessThan(0.01);
    // A long enough take says nothing of the kind.
    const long = await recordAndKill(b, 5000);
    expect(long.sample.note).not.toMatch(/short stretch/);
  });

  it('keeps a take too short to measure as one waiting for its rate, which can then be given', async () => {
    const b: Board = { rateHz: 100, burstMs: 10, seed: 13 };
    const { sample, rows, store } = await recordAndKill(b, 1);
    expect(rows).toBeLessThan(3);
    expect(sample).toMatchObject({ incomplete: true, lengthMs: null, state: 'local' });
    expect(sample.extra).toMatchObject({ rate_missing: true, interrupted: true, interval_ms: null, recovered: true });
    expect(sample.note).toContain(RATE_MISSING_NOTE);
    const given = await setSampleRate(store, sample.id, 100, undefined);
    expect(given).toMatchObject({ incomplete: true, lengthMs: rows * 10 });
    expect(given.extra).toMatchObject({ interval_ms: 10, rate_given: true });
    expect(given.note).toMatch(/^incomplete: the app stopped during this recording/);
  });
});

describe('the arrival times kept with the rows', () => {
  it('writes the first batch at once, then at most every 100 ms, and never more than 4 KiB at a time', () => {
    const t = new TimingLog();
    expect(t.add(0, 10, 1)?.length).toBe(TIMING_RECORD_BYTES);
    expect(t.add(50, 11, 1)).toBeNull();
    expect(t.add(99, 12, 1)).toBeNull();
    expect(t.add(100, 13, 1)?.length).toBe(3 * TIMING_RECORD_BYTES);
    let out: Buffer | null = null;
    for (let i = 0; i < 256 && !out; i++) out = t.add(100.001 + i * 0.001, 14 + i, 1);
    expect(out?.length).toBe(256 * TIMING_RECORD_BYTES);
    expect(t.take()).toBeNull();
  });

  it('measures only the rows that reached the disk, ignores a record cut short, and stays quick for ten minutes of batches', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-times-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'x.times');
    // 1000 batches a second of 10 rows (a 10 kHz board) for ten minutes; then 500 batches at twice the rate that never reached the rows file.
    const hour = 600_000;
    const buf = Buffer.alloc((hour + 500) * TIMING_RECORD_BYTES + 7);
    for (let i = 0; i < hour + 500; i++) {
      const at = i * TIMING_RECORD_BYTES;
      buf.writeDoubleLE(i < hour ? i + (i % 3) * 0.2 : hour + (i - hour) / 2, at);
      buf.writeUInt32LE(10, at + 8);
      buf.writeUInt32LE(10, at + 12);
    }
    await writeFile(file, buf);
    const started = performance.now();
    const r = await measureRecordedRate(file, hour * 10 + 5);
    const tookMs = performance.now() - started;
    expect(r!.rows).toBe(hour * 10);
    expect(r!.frequencyHz! / 10_000 - 1).toBeLessThan(1e-6);
    expect(r!.spanMs).toBeCloseTo(hour - 1 + ((hour - 1) % 3) * 0.2, 6);
    expect(tookMs).toBeLessThan(5000);
    expect(await measureRecordedRate(join(dir, 'none.times'), 10)).toBeNull();
  });
});

describe('the app\'s finished take', () => {
  it('gets the rate the reader measured, not the one announced to the plot (re-announced only on a 1 % move)', async () => {
    for (const [b, stopAt] of [[{ rateHz: 1000, burstMs: 10, seed: 3 }, 4000], [{ rateHz: 100, burstMs: 10, seed: 7 }, 3000]] as Array<[Board, number]>) {
      const s = await recordInApp(b, stopAt);
      const err = relErr(s.extra['interval_ms'] as number, b);
      if (process.env['SHOW_RATES']) console.log(`app finish ${b.rateHz} Hz: ${(err * 100).toFixed(3)} %`);
      expect(Math.abs(err)).toBeLessThan(0.001);
    }
  });
});
