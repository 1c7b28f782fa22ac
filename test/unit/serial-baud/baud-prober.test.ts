import { describe, expect, it } from 'vitest';
import type { ByteLink } from '../../../src-main/core/serial/byte-link.js';
import { BAUD_ORDER, probeOrder } from '../../../src-main/core/serial/baud/baud-rates.js';
import { probeBaud } from '../../../src-main/core/serial/baud/baud-prober.js';
import { uartTransform } from '../../support/boards/uart-transform.js';

const LINES = Array.from({ length: 80 }, (_, i) => `${i},${(i * 0.25).toFixed(2)},-${i % 13}\r\n`);
const BANNER = Buffer.from('\r\n ets Jan  8 2013,rst cause:2, boot mode:(3,6)\r\n\r\nload 0x4010f000, len 3460, room 16 \r\n');

/**
 * A board at `boardBaud` printing a line every `everyMs` (after a banner at 74880 with `banner`),
 * behind a link whose reads are what a UART at the host's current rate receives, from the
 * emulated board's own sampler. `silent`: prints nothing; answers "AT\r" with a prompt when asked
 * at its rate (the platform's firmware).
 */
function fakeBoard(boardBaud: number, opts: { everyMs?: number; banner?: boolean; silent?: boolean; openAt?: number } = {}) {
  const jobs = BAUD_ORDER.flatMap((to) => LINES.map((l) => ({ from: boardBaud, to, data: Buffer.from(l), ignpar: true })));
  const out = uartTransform([...jobs, ...BAUD_ORDER.map((to) => ({ from: 74_880, to, data: BANNER, ignpar: true }))]);
  const at = (to: number, i: number) => out[BAUD_ORDER.indexOf(to) * LINES.length + i]!;
  const banner = (to: number) => out[jobs.length + BAUD_ORDER.indexOf(to)]!;
  let host = opts.openAt ?? BAUD_ORDER[0]!;
  const listeners = new Set<(c: Buffer) => void>();
  const emit = (c: Buffer) => c.length && listeners.forEach((cb) => cb(c));
  let i = 0;
  const sent: Array<{ host: number; line: number }> = [];
  const timer = opts.silent ? null : setInterval(() => {
    if (i === 0 && opts.banner) emit(banner(host));
    sent.push({ host, line: i });
    emit(at(host, i++ % LINES.length));
  }, opts.everyMs ?? 20);
  const link: ByteLink = {
    path: '/dev/fake',
    onData: (cb) => (listeners.add(cb), () => listeners.delete(cb)),
    onClose: () => () => undefined,
    async write(data) {
      if (opts.silent && String(data) === 'AT\r' && host === boardBaud) setTimeout(() => emit(Buffer.from('AT\r\nOK\r\n> ')), 5);
    },
    async setBaudRate(b) {
      host = b;
    },
    close: async () => void (timer && clearInterval(timer)),
  };
  return { link, sent, stop: () => timer && clearInterval(timer) };
}

const opts = (order: number[]) => ({ order, now: () => Date.now(), quietMs: 80, maxMs: 600 });

describe('probeBaud: a board\'s rate found from its own output', { timeout: 30_000 }, () => {
  it('tries the usual order, stops at the rate that reads whole lines, and hands on only what that rate read', async () => {
    const b = fakeBoard(57_600);
    const r = await probeBaud(b.link, opts(probeOrder(null)));
    b.stop();
    expect(r).toMatchObject({ baud: 57_600, protocol: 'lines', tried: [115_200, 9_600] });
    const text = Buffer.concat(r.heard.map((h) => h.chunk)).toString('latin1');
    // Whole lines the board sent, in order, nothing else (the first may be cut).
    const lines = text.split('\r\n').slice(1, -1);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const first = LINES.indexOf(lines[0] + '\r\n');
    expect(lines.map((l) => l + '\r\n')).toEqual(LINES.slice(first, first + lines.length));
    expect(/[\x80-\xff\x00]/.test(text)).toBe(false);
  });

  it('tries the remembered rate first', async () => {
    const b = fakeBoard(921_600, { openAt: 921_600 });
    const r = await probeBaud(b.link, opts(probeOrder(921_600)));
    b.stop();
    expect(r).toMatchObject({ baud: 921_600, tried: [] });
  });

  it.each([9_600, 250_000, 1_000_000, 74_880])('finds %i', async (baud) => {
    const b = fakeBoard(baud);
    const r = await probeBaud(b.link, opts(probeOrder(null)));
    b.stop();
    expect(r.baud).toBe(baud);
  });

  it('an ESP8266 (ROM banner at 74880, sketch at 115200) ends on the sketch\'s rate, even remembered at 74880', async () => {
    const b = fakeBoard(115_200, { banner: true, openAt: 74_880 });
    const r = await probeBaud(b.link, opts(probeOrder(74_880)));
    b.stop();
    expect(r).toMatchObject({ baud: 115_200, protocol: 'lines' });
  });

  it.each([115_200, 9_600, 74_880])('finds a board printing a line every 700 ms (scaled: every 2 s) at %i', async (baud) => {
    // Before: its lines fell into a few rates' turns, none a whole line at its own: "no rate read
    // whole lines of numbers" (or found at the search's end as text, 10 s late).
    const b = fakeBoard(baud, { everyMs: 700 });
    const r = await probeBaud(b.link, { ...opts(probeOrder(null)), deadlineMs: 3000, slowMs: 1500, slowDeadlineMs: 25_000 });
    b.stop();
    expect(r).toMatchObject({ baud, protocol: 'lines' });
    expect(/[\x80-\xff\x00]/.test(Buffer.concat(r.heard.map((h) => h.chunk)).toString('latin1'))).toBe(false);
  });

  it('asks a silent board at each rate and finds the platform\'s firmware where it answers', async () => {
    const b = fakeBoard(57_600, { silent: true });
    const r = await probeBaud(b.link, { ...opts(probeOrder(null)), atWaitMs: 60 });
    expect(r).toMatchObject({ baud: 57_600, protocol: 'at' });
  });

  it('says so when no rate reads anything', async () => {
    const b = fakeBoard(57_600, { silent: true });
    const r = await probeBaud(b.link, { ...opts([115_200, 9_600]), atWaitMs: 30, askAt: false });
    expect(r).toMatchObject({ baud: null, silent: true });
  });
});
