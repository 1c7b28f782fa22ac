import type { PortSettings } from '../../contract/contract.js';
import { CoreError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ByteLink, SerialOpener } from '../byte-link.js';
import type { BaudBook } from './baud-memory.js';
import { describeVerdicts, probeBaud, type BaudProbeOptions, type HeardChunk } from './baud-prober.js';
import { probeOrder } from './baud-rates.js';

/** The rate a stream runs at, as the stream's info says it. */
export interface BaudUsed {
  rate: number;
  /** Found from the board's output (Auto), not set. */
  detected: boolean;
  /** Rates tried before it. */
  tried: number[];
}

export interface OpenedAtRate {
  link: ByteLink;
  baud: BaudUsed;
  /** What the found rate read while it was judged: the reader starts from it. */
  heard: HeardChunk[];
}

export interface OpenAtRateDeps {
  opener: SerialOpener;
  log: Logger;
  now(): number;
  bauds?: BaudBook | undefined;
  /** Tuning for tests; the defaults suit a board printing ≥ 10 lines a second. */
  probe?: Partial<Pick<BaudProbeOptions, 'quietMs' | 'maxMs' | 'deadlineMs' | 'atWaitMs' | 'askAt'>>;
}

/**
 * Opens a streaming board's port at its rate: the one set, or with Auto the one its own output
 * says (the rate remembered for the board first). A board that answers AT commands, or one that
 * reads nothing at any rate, is said as such (details.silent, details.at with the rate it answered
 * at), so a caller can go on with the platform's firmware; nothing read at a wrong rate is kept.
 */
export async function openAtRate(d: OpenAtRateDeps, path: string, settings: PortSettings, signal?: AbortSignal): Promise<OpenedAtRate> {
  if (settings.baudRate !== 'auto') {
    return { link: await d.opener.open(path, settings.baudRate), baud: { rate: settings.baudRate, detected: false, tried: [] }, heard: [] };
  }
  const remembered = d.bauds ? await d.bauds.recall(path).catch((err: unknown) => (d.log.warn('could not read the remembered baud rate', { path, error: String(err) }), null)) : null;
  const order = probeOrder(remembered);
  const started = Date.now();
  const link = await d.opener.open(path, order[0]!);
  let ok = false;
  try {
    // A Nordic-only port (mode nordic) still searches the same way: its frames are judged by their CRC.
    const r = await probeBaud(link, { order, now: d.now, ...(signal ? { signal } : {}), ...d.probe });
    if (r.protocol === 'at' && r.baud !== null) {
      await d.bauds?.remember(path, r.baud);
      throw new CoreError('Unavailable', `${path} answers AT commands at ${r.baud} baud: it runs the platform's official firmware, which records on the board instead of streaming. Set the port to the platform firmware (AT) mode.`, { path, silent: true, at: true, baud: r.baud });
    }
    if (r.baud === null) {
      const secs = Math.round((Date.now() - started) / 1000);
      if (r.silent) {
        // Not asked: a sketch waiting for a key before it prints (while (!Serial.available())) looks like this.
        const waiting = r.askedAt ? '' : ' A sketch that waits for input before it prints stays silent until it gets a character: send one from a serial monitor, or record with --mode auto, which writes to a silent board.';
        throw new CoreError('Unavailable', `No numeric lines from ${path} within ${secs} s: nothing readable arrived at any baud rate (tried ${r.tried.join(', ')})${r.askedAt ? ', and it did not answer AT commands at any of them' : ''}. Check that the board is running and prints one reading per line (or runs Nordic's data forwarder).${waiting}`, { path, silent: true, askedAt: r.askedAt });
      }
      throw new CoreError('Unavailable', `Could not find the baud rate of ${path}: no rate read whole lines of numbers or Nordic frames (${describeVerdicts(r.verdicts)}). Check that the board prints one reading per line (or runs Nordic's data forwarder), or give its rate (--baud N).`, { path, silent: false });
    }
    // Clean text without numbers is the board's rate but not yet proof enough to remember. Not
    // waited for: from here to the reader's first byte nothing may wait, or what the board sends
    // meanwhile is read by no one (a gap the reader would count as lost readings).
    if (r.protocol !== 'text') d.bauds?.remember(path, r.baud).catch((err: unknown) => d.log.warn('could not remember the baud rate', { path, error: String(err) }));
    ok = true;
    return { link, baud: { rate: r.baud, detected: true, tried: r.tried }, heard: r.heard };
  } finally {
    if (!ok) await link.close();
  }
}

/** "Baud rate 57600 (found; tried 115200, 9600)" or "Baud rate 9600 (set)". */
export function baudSentence(b: BaudUsed): string {
  return `Baud rate ${b.rate} (${b.detected ? `found${b.tried.length ? `; tried ${b.tried.join(', ')}` : ''}` : 'set'})`;
}
