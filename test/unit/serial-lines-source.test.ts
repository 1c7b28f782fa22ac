import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src-main/core/clock.js';
import { createLogger } from '../../src-main/core/log.js';
import type { ByteLink, SerialOpener } from '../../src-main/core/serial/byte-link.js';
import { createLineReader } from '../../src-main/core/serial/line-reader.js';
import { DEFAULT_PORT_SETTINGS } from '../../src-main/core/serial/port-registry.js';
import { serialLinesFactory } from '../../src-main/core/serial/serial-lines-source.js';
import type { StreamSink } from '../../src-main/core/stream/stream-hub.js';

/** A port that delivers data but never reports its own end: only its path can vanish. */
function quietLink(path: string) {
  const data: Array<(b: Buffer) => void> = [];
  let closed = 0;
  const link: ByteLink = {
    path,
    onData: (cb) => (data.push(cb), () => undefined),
    onClose: () => () => undefined,
    write: async () => undefined,
    setBaudRate: async () => undefined,
    close: async () => void closed++,
  };
  return { link, send: (s: string) => data.forEach((cb) => cb(Buffer.from(s))), closed: () => closed };
}

describe('serial line source', () => {
  it('counts a silent port whose device node disappeared as disconnected, even without a close event', async () => {
    const q = quietLink('/dev/ttyTEST');
    let present = true;
    const opener: SerialOpener = { open: async () => q.link, exists: async () => present };
    const interrupted: unknown[] = [];
    const sink: StreamSink = { info() {}, rows() {}, stats() {}, ended() {}, interrupted: (e) => void interrupted.push(e), resumed() {} };
    const factory = serialLinesFactory({
      registry: { settingsFor: () => ({ ...DEFAULT_PORT_SETTINGS }) },
      opener,
      clock: systemClock,
      log: createLogger(() => undefined),
      createReader: (o) => createLineReader(o),
      reconnectPollMs: 60_000,
    });
    const feeding = setInterval(() => q.send('1,2,3\n'), 10);
    const running = await factory('serial:/dev/ttyTEST', { signal: new AbortController().signal }, sink);
    try {
      await new Promise((r) => setTimeout(r, 1200));
      expect(interrupted).toHaveLength(0); // data flowing and the path there: nothing to report
      clearInterval(feeding);
      present = false;
      await expect.poll(() => interrupted.length, { timeout: 4000 }).toBe(1);
      expect(String((interrupted[0] as Error).message)).toMatch(/disconnected.*device node is gone/);
      expect(q.closed()).toBe(1);
    } finally {
      clearInterval(feeding);
      await running.stop();
    }
  });
});

describe('serial line source: readings counted whatever the rate', () => {
  it('with a given rate, rows still come with their reading numbers (a take counts its own losses), and its reading says the given rate', async () => {
    const q = quietLink('/dev/ttyGIVEN');
    const opener: SerialOpener = { open: async () => q.link, exists: async () => true };
    const lines: number[] = [];
    const sink: StreamSink = { info() {}, rows: (_v, _n, timing) => void lines.push(timing?.lines ?? -1), stats() {}, ended() {}, interrupted() {}, resumed() {} };
    const factory = serialLinesFactory({
      registry: { settingsFor: () => ({ ...DEFAULT_PORT_SETTINGS, frequencyHz: 50 }) },
      opener, clock: systemClock, log: createLogger(() => undefined), createReader: (o) => createLineReader(o),
    });
    const feeding = setInterval(() => q.send('1,2,3\n'), 5);
    const running = await factory('serial:/dev/ttyGIVEN', { signal: new AbortController().signal }, sink);
    try {
      await expect.poll(() => lines.length, { timeout: 4000 }).toBeGreaterThan(5);
      expect(running.measuresRate).toBe(false);
      expect(lines.every((n) => n > 0)).toBe(true);
      expect(lines).toEqual([...lines].sort((a, b) => a - b));
      expect(running.reading?.rate()).toEqual({ frequencyHz: 50, relativeError: 0 });
      expect(running.reading?.lostBefore(lines.at(-1)!)).toBe(0);
    } finally {
      clearInterval(feeding);
      await running.stop();
    }
  });
});

describe('serial line source: a slow board', () => {
  const start = (lineEveryMs: number, line: string) => {
    const q = quietLink('/dev/ttySLOW');
    const opener: SerialOpener = { open: async () => q.link, exists: async () => true };
    const sink: StreamSink = { info() {}, rows() {}, stats() {}, ended() {}, interrupted() {}, resumed() {} };
    const factory = serialLinesFactory({
      registry: { settingsFor: () => ({ ...DEFAULT_PORT_SETTINGS, baudRate: 115200 }) },
      opener, clock: systemClock, log: createLogger(() => undefined), createReader: (o) => createLineReader(o),
      // Scaled down: a board printing every 2 s against the 5 s wait for the first lines.
      detectTimeoutMs: 300, slowDetectMs: 20_000,
    });
    const feeding = setInterval(() => q.send(line), lineEveryMs);
    return { run: factory('serial:/dev/ttySLOW', { signal: new AbortController().signal }, sink), done: () => clearInterval(feeding) };
  };

  it('is waited for while its lines are clean: its columns show only from the fourth line', async () => {
    // Before: "No numeric lines from /dev/ttySLOW within 0 s: 1 lines arrived but none were numbers (last: "partial: …")".
    const b = start(250, '0.841,0.5,10\r\n');
    try {
      const running = await b.run;
      expect(running.info.axes.map((a) => a.name)).toEqual(['value1', 'value2', 'value3']);
      await running.stop();
    } finally {
      b.done();
    }
  }, 30_000);

  it('is not waited for when what it prints is text', async () => {
    const t0 = Date.now();
    const b = start(250, 'waiting for the sensor\r\n');
    try {
      await expect(b.run).rejects.toThrow(/No numeric lines from \/dev\/ttySLOW within 0 s/);
      expect(Date.now() - t0).toBeLessThan(10_000); // not the slow board's 20 s
    } finally {
      b.done();
    }
  }, 30_000);
});
