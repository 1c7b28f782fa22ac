import { describe, expect, it } from 'vitest';
import { DEMO_SOURCE_ID, type StreamBatch } from '../../src-main/core/contract/contract.js';
import { EventBus } from '../../src-main/core/event-bus.js';
import { simulatedImuRow } from '../../src-main/core/stream/simulated-imu.js';
import { MAX_BATCHES_PER_SECOND, StreamHub } from '../../src-main/core/stream/stream-hub.js';
import { ManualClock } from '../support/fake-hardware.js';

function setup() {
  const bus = new EventBus();
  const clock = new ManualClock();
  const hub = new StreamHub(bus, clock);
  const batches: StreamBatch[] = [];
  bus.on('stream.batch', (b) => batches.push(b));
  return { bus, clock, hub, batches };
}

describe('StreamHub with the simulated sensor', () => {
  it('delivers exactly rate × time rows in at most 60 batches per second', async () => {
    const { clock, hub, batches } = setup();
    await hub.start(DEMO_SOURCE_ID, 10_000);
    clock.advance(1000);
    const rows = batches.reduce((n, b) => n + b.values.length / b.axisCount, 0);
    // Rows become due continuously but leave on ticks: at most one tick's worth may still wait.
    expect(rows).toBeLessThanOrEqual(10_000);
    expect(rows).toBeGreaterThanOrEqual(10_000 - 10_000 / MAX_BATCHES_PER_SECOND);
    expect(batches.length).toBeLessThanOrEqual(MAX_BATCHES_PER_SECOND);
    expect(batches.length).toBeGreaterThan(30);
  });

  it('numbers batches and rows without gaps and sends the predicted values', async () => {
    const { clock, hub, batches } = setup();
    await hub.start(DEMO_SOURCE_ID, 250);
    clock.advance(2000);
    let expectIndex = 0;
    batches.forEach((b, i) => {
      expect(b.seq).toBe(i);
      expect(b.firstIndex).toBe(expectIndex);
      expectIndex += b.values.length / 3;
    });
    const row = new Float32Array(3);
    const last = batches.at(-1)!;
    const lastRow = last.values.length / 3 - 1;
    simulatedImuRow(last.firstIndex + lastRow, 250, row, 0);
    expect(Array.from(last.values.slice(lastRow * 3))).toEqual(Array.from(row));
  });

  it('works at slow rates (no empty batches) and stops cleanly', async () => {
    const { clock, hub, batches, bus } = setup();
    const states: string[] = [];
    bus.on('stream.state', (s) => states.push(s.state));
    await hub.start(DEMO_SOURCE_ID, 2);
    clock.advance(3100);
    expect(batches.every((b) => b.values.length > 0)).toBe(true);
    expect(batches.reduce((n, b) => n + b.values.length / 3, 0)).toBe(6);
    expect(await hub.stop(DEMO_SOURCE_ID)).toBe(true);
    clock.advance(3000);
    expect(batches.reduce((n, b) => n + b.values.length / 3, 0)).toBe(6);
    expect(states).toEqual(['started', 'stopped']);
    expect(await hub.stop(DEMO_SOURCE_ID)).toBe(false);
  });

  it('start is idempotent for the same rate and restarts for a new one', async () => {
    const { hub } = setup();
    const a = await hub.start(DEMO_SOURCE_ID, 100);
    expect(await hub.start(DEMO_SOURCE_ID)).toBe(a);
    expect((await hub.start(DEMO_SOURCE_ID, 50)).rateHz).toBe(50);
  });

  it('refuses sources it cannot stream with a typed error', async () => {
    const { hub } = setup();
    await expect(hub.start('serial:/dev/ttyUSB0')).rejects.toMatchObject({ code: 'NotFound' });
  });
});

describe('StreamHub with a source that pushes rows while it starts', () => {
  it('keeps rows that arrive before start() returns, even when the source reuses its array', async () => {
    const { hub, batches, clock } = setup();
    hub.register('fake:', async (sourceId, _o, sink) => {
      const shared = new Float64Array(2);
      for (let i = 0; i < 3; i++) {
        shared[0] = i;
        shared[1] = -i;
        sink.rows(shared, 1); // same array each time, as a line reader does
      }
      return { info: { sourceId, axes: [{ name: 'a', units: '' }, { name: 'b', units: '' }], rateHz: 10, simulated: false }, stop() {} };
    });
    await hub.start('fake:x');
    clock.advance(20);
    expect(Array.from(batches[0]!.values)).toEqual([0, -0, 1, -1, 2, -2]);
  });

  it('tells every tap where its rows lie on the stream (rows since the first reading, those before start() returned included), and batches count the same rows', async () => {
    const { hub, batches, clock } = setup();
    let sink!: Parameters<Parameters<StreamHub['register']>[1]>[2];
    const info = (axes: number) => ({ sourceId: 'fake:x', axes: Array.from({ length: axes }, (_, i) => ({ name: `a${i}`, units: '' })), rateHz: 10, simulated: false });
    hub.register('fake:', async (_id, _o, s) => {
      sink = s;
      s.rows(new Float64Array(4), 2); // while it detects its columns
      return { info: info(2), stop() {} };
    });
    await hub.start('fake:x');
    const early: number[] = [];
    hub.tap('fake:x', (_v, _n, _i, _t, at) => early.push(at));
    sink.rows(new Float64Array(6), 3);
    // A tap added later (a model started once the rate settled) starts at the stream's row 5, not 0.
    const late: Array<[number, number]> = [];
    hub.tap('fake:x', (_v, n, _i, _t, at) => late.push([at, n]));
    sink.rows(new Float64Array(2), 1);
    sink.info(info(3)); // the columns changed: batches go on counting the stream's rows
    sink.rows(new Float64Array(3), 1);
    clock.advance(20);
    expect(early).toEqual([2, 5, 6]);
    expect(late).toEqual([[5, 1], [6, 1]]);
    expect(batches.map((b) => [b.firstIndex, b.values.length / b.axisCount])).toEqual([[6, 1]]);
  });
});

describe('StreamHub: stopping a source that is still starting', () => {
  it('aborts the start, closes what the source opened, and frees the id for a new start', async () => {
    const { hub } = setup();
    let closed = 0;
    let seenSignal: AbortSignal | null = null;
    hub.register('slow:', async (sourceId, { signal }, _sink) => {
      seenSignal = signal;
      // Like a serial source waiting for its first lines: it gives up when aborted.
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, 5000);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          closed++;
          reject(new Error('cancelled'));
        });
      });
      return { info: { sourceId, axes: [{ name: 'x', units: '' }], rateHz: 10, simulated: false }, stop: () => void closed++ };
    });
    const starting = hub.start('slow:a').catch((e: unknown) => e);
    expect(hub.isStarting('slow:a')).toBe(true);
    expect(await hub.stop('slow:a')).toBe(true);
    expect(seenSignal!.aborted).toBe(true);
    expect(await starting).toBeInstanceOf(Error);
    expect(closed).toBe(1);
    expect(hub.isStarting('slow:a')).toBe(false);
    expect(hub.isStreaming('slow:a')).toBe(false);
  });
});
