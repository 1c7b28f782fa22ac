import type { Clock } from '../clock.js';
import { CoreError } from '../errors.js';
import { silentLogger, type Logger } from '../log.js';
import { AtClient } from './at/at-client.js';
import type { BaudBook } from './baud/baud-memory.js';
import type { HeardChunk } from './baud/baud-prober.js';
import { openAtRate } from './baud/open-at-rate.js';
import type { ByteLink, SerialOpener } from './byte-link.js';
import { DEFAULT_PORT_SETTINGS } from './port-registry.js';
import { createSerialReader } from './serial-reader.js';
import { badLinesWords } from './lines/bad-lines-words.js';

/** What opening a port for a few seconds tells about the board on it. */
export interface PortProbe {
  /** The rate the port was read at; null when it did not open. */
  baud: number | null;
  /** lines: numbers per line; nordic: Nordic's data forwarder; at: the platform's firmware (answered AT); null: none of these. */
  protocol: 'lines' | 'at' | 'nordic' | null;
  axes: number | null;
  frequencyHz: number | null;
  /** A sentence saying what is wrong and what to do, or null. */
  problem: string | null;
}

export interface ProbeOptions {
  opener: SerialOpener;
  clock: Clock;
  /** The most one port is given, opening included. */
  timeoutMs?: number;
  /** A port silent this long is asked whether it runs the platform's firmware (which waits to be asked). */
  silentMs?: number;
  /** Rates found before, per board: tried first, and a rate found here is remembered. */
  bauds?: BaudBook | undefined;
  /** Where a rate that could not be read back or remembered is said. */
  log?: Logger;
}

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_SILENT_MS = 1000;
/** A measured rate is said once the estimate is this good (0.5 %), or at the time limit as it stands. */
const RATE_GOOD_ENOUGH = 0.005;
/** ...once this much of the board's output has been read, too: on a loaded host one second's estimate was seen 1 % off while claiming 0.5 %. */
const SETTLE_MS = 2000;

/**
 * Opens a port, reads what it sends for at most `timeoutMs` and says what it is: the same reader
 * as a recording (numbers per line or Nordic frames, told apart by the stream), and for a silent
 * port the platform firmware's AT prompt. Never throws: what went wrong is `problem`.
 */
export async function probePort(path: string, o: ProbeOptions): Promise<PortProbe> {
  const started = Date.now();
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const none = { protocol: null, axes: null, frequencyHz: null } as const;
  // The rate is found from the board's output as a recording finds it (--baud auto), leaving the
  // last second and a half of the port's time to measure its axes and rate at the rate found.
  const search = new AbortController();
  let link: ByteLink;
  let baud: number;
  let heard: HeardChunk[];
  // Whether the port opened, for the sentence when the time runs out: a port that opened and was
  // silent (searched at every rate, asked AT) is not one that "did not open".
  let opened = false;
  const opener: SerialOpener = { ...o.opener, open: async (p, b) => { const l = await o.opener.open(p, b); opened = true; return l; } };
  try {
    const opening = openAtRate(
      { opener, log: o.log ?? silentLogger, now: () => o.clock.now(), bauds: o.bauds, probe: { deadlineMs: Math.max(500, timeoutMs - 1500) } },
      path,
      { ...DEFAULT_PORT_SETTINGS, baudRate: 'auto' },
      search.signal,
    );
    // A port that opens after we gave up on it is closed again, never left open.
    const late = (l: { link: ByteLink }) => void l.link.close().catch(() => undefined);
    const at = await withTimeout(opening, timeoutMs, () => opened
      ? `Nothing readable from ${path} within ${timeoutMs / 1000} s: it opened, but no baud rate read a board's output (nor did it answer as the platform's firmware, AT, where it was asked). Is a sketch running that prints readings? (A board printing seldom is found by record serial, which searches longer.)`
      : `${path} did not open within ${timeoutMs / 1000} s.`, late, () => search.abort());
    ({ link, heard } = at);
    baud = at.baud.rate;
  } catch (err) {
    const d = err instanceof CoreError ? (err.details as { at?: boolean; baud?: number } | undefined) : undefined;
    // The platform's firmware answered AT at a rate: that is what the port is, not a problem.
    if (d?.at && typeof d.baud === 'number') return { baud: d.baud, protocol: 'at', axes: null, frequencyHz: null, problem: null };
    return { baud: null, ...none, problem: (err as Error).message };
  }
  try {
    return { baud, ...(await readBoard(path, link, heard, baud, o, started + timeoutMs)) };
  } catch (err) {
    return { baud, ...none, problem: (err as Error).message };
  } finally {
    await link.close().catch(() => undefined);
  }
}

async function readBoard(path: string, link: ByteLink, heard: HeardChunk[], baud: number, o: ProbeOptions, deadline: number): Promise<Omit<PortProbe, 'baud'>> {
  const reader = createSerialReader({ frequencyHz: null, axes: null, protocol: 'auto' });
  let bytes = 0;
  let firstAt: number | null = null;
  let lost: string | null = null;
  // What the found rate read while it was judged is the board's first data, with its times.
  for (const h of heard) {
    bytes += h.chunk.length;
    firstAt ??= Date.now() - (o.clock.now() - h.atMs);
    reader.push(h.chunk, h.atMs);
  }
  const offData = link.onData((chunk) => {
    bytes += chunk.length;
    firstAt ??= Date.now();
    reader.push(chunk, o.clock.now());
  });
  const offClose = link.onClose(({ disconnected, error }) => (lost = `${path} went away while being read${disconnected ? ' (unplugged?)' : error ? `: ${error.message}` : ''}.`));
  const openedAt = Date.now();
  try {
    for (;;) {
      if (lost) return { protocol: null, axes: null, frequencyHz: null, problem: lost };
      const now = Date.now();
      const s = reader.snapshot();
      const protocol = reader.protocol();
      if (protocol === 'nordic' && s.width !== null && s.frequencyHz !== null) return { protocol, axes: s.width, frequencyHz: round(s.frequencyHz), problem: null };
      if (protocol === 'lines' && s.width !== null) {
        const rate = reader.currentRate();
        const settled = rate !== null && rate.relativeError <= RATE_GOOD_ENOUGH && firstAt !== null && now - firstAt >= SETTLE_MS;
        if (settled || now >= deadline) return { protocol, axes: s.width, frequencyHz: rate ? round(rate.frequencyHz) : null, problem: rate ? null : `${path} prints ${s.width} numbers per line, but not long enough to measure its rate.` };
      }
      if (bytes === 0 && now - openedAt >= (o.silentMs ?? DEFAULT_SILENT_MS)) return await askAt(path, link, deadline);
      if (now >= deadline && protocol === 'nordic' && s.width !== null) return { protocol, axes: s.width, frequencyHz: null, problem: null }; // its rate comes with the session info, every few seconds
      if (now >= deadline) {
        const what = s.badLines > 0 ? badLinesWords(s) : `${bytes} bytes came but no whole line`;
        return { protocol, axes: s.width, frequencyHz: null, problem: `Nothing readable from ${path} at ${baud} baud: ${what}. Check the baud rate and that the board prints one reading per line.` };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    offData();
    offClose();
  }
}

/** Not a byte came: a board with the platform's firmware says nothing until asked. */
async function askAt(path: string, link: ByteLink, deadline: number): Promise<Omit<PortProbe, 'baud'>> {
  const client = new AtClient(link, { connectTimeoutMs: Math.max(500, deadline - Date.now()) });
  try {
    await client.transport.sync({ timeoutMs: Math.max(500, deadline - Date.now()) });
    return { protocol: 'at', axes: null, frequencyHz: null, problem: null };
  } catch {
    return { protocol: null, axes: null, frequencyHz: null, problem: `Nothing came from ${path} (nor did it answer as the platform's firmware, AT). Is a sketch running that prints readings?` };
  } finally {
    client.close();
  }
}

function round(hz: number): number {
  return Math.round(hz * 100) / 100;
}

function withTimeout<T>(p: Promise<T>, ms: number, message: () => string, onLate: (value: T) => void, onExpire?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  p.then((v) => timedOut && onLate(v), () => undefined);
  const expire = new Promise<never>((_, reject) => (timer = setTimeout(() => ((timedOut = true), onExpire?.(), reject(new Error(message()))), ms)));
  return Promise.race([p, expire]).finally(() => clearTimeout(timer));
}
