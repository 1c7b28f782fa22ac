import type { StreamInfo } from '../contract/contract.js';
import type { Clock } from '../clock.js';
import { CoreError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SourceFactory, StreamSink } from '../stream/stream-hub.js';
import { BaudJudge } from './baud/baud-judge.js';
import type { BaudBook } from './baud/baud-memory.js';
import { openAtRate, type BaudUsed, type OpenAtRateDeps } from './baud/open-at-rate.js';
import type { ByteLink, SerialOpener } from './byte-link.js';
import type { LineReaderOverrides, LineReaderPort, LineReaderSnapshot, SerialReaderPort } from './line-reader-port.js';
import type { PortRegistry } from './port-registry.js';
import { badLinesWords } from './lines/bad-lines-words.js';

export interface SerialLinesDeps {
  registry: Pick<PortRegistry, 'settingsFor'>;
  opener: SerialOpener;
  clock: Clock;
  log: Logger;
  createReader(o: LineReaderOverrides): LineReaderPort;
  /** How long to wait for the first readable lines before saying so. */
  detectTimeoutMs?: number;
  /**
   * How long a board whose lines are clean but few (a reading every few seconds) is waited for:
   * its columns are known only from the third whole line after the one opening cut.
   */
  slowDetectMs?: number;
  /** How long a Nordic board's samples wait for its session info (names, rate; resent every 5 s) before they go on without. */
  nordicSessionWaitMs?: number;
  reconnectPollMs?: number;
  /** Rates found, remembered per board (Auto tries the remembered one first). */
  bauds?: BaudBook;
  /** Tuning of the baud search for tests. */
  baudProbe?: OpenAtRateDeps['probe'];
  /**
   * Whether a board silent at every rate is asked (AT) whether it runs the platform's firmware.
   * Default true: the app's streaming mode tells such a port apart. `record serial --mode lines`
   * (or nordic) promises a board that streams by itself, so nothing may be written to it.
   */
  askAt?: boolean;
}

/** A rate set by hand that reads garbage this long (and no readings) is said to be the wrong one. */
const WRONG_RATE_AFTER_MS = 1000;

/** A board printing a reading every 5 s shows its fourth line (the first is cut by opening) within this. */
const SLOW_DETECT_MS = 30_000;

/** Enough of a stream's first bytes to say what it is. */
const SEEN_BYTES = 64 * 1024;

const STATS_EVERY_MS = 500;
/** A port silent this long is checked for still being there. */
const SILENT_CHECK_MS = 1000;

/**
 * Streams a "print values over serial" board: bytes → reader → rows for the hub. Unplugging
 * interrupts the stream (recordings end as incomplete samples) and the source reopens the port
 * when the board comes back.
 */
export function serialLinesFactory(d: SerialLinesDeps): SourceFactory {
  return async (sourceId, opts, sink) => {
    const path = sourceId.slice('serial:'.length);
    const settings = d.registry.settingsFor(path);
    if (settings.mode === 'at') {
      throw new CoreError('InvalidArguments', `${path} is set to the platform firmware (AT) mode, which records samples on the board instead of streaming lines. Switch the port to "lines" mode to see it live.`);
    }
    // A streaming board is told apart by its stream: numbers per line, or Nordic's data forwarder.
    const reader = d.createReader({ frequencyHz: settings.frequencyHz, axes: settings.axes, protocol: settings.mode === 'nordic' ? 'nordic' : 'auto' });
    const serial = 'protocol' in reader ? (reader as SerialReaderPort) : null;
    const isNordic = () => serial?.protocol() === 'nordic';
    // A rate the person gave is the rate; only a measured one comes with the times it is measured
    // from. A Nordic board gives its rate; its rows come with their reading numbers (seq, gaps
    // included), so a recording knows exactly which of the board's samples it holds.
    let measuresRate = settings.frequencyHz === null;
    // Readings are counted whatever the rate: a take counts its losses between its own first and last.
    reader.onRows((values, rows, _width, timing) => sink.rows(values, rows, timing));
    serial?.onPart((c) => {
      // The board restarted: its seq and ts start over, so what came before is one part and what
      // follows the next. A recording ends here (kept); the stream goes on.
      sink.interrupted(new CoreError('Unavailable', `The board on ${path} restarted (new session ${c.sid.toString(16)}): the take so far ends here and is kept; its time does not continue into the next part.`, { path, restarted: true, part: c.part, lastReading: c.lastReading }));
      sink.resumed();
    });
    // With Auto the rate is found first: nothing read at a wrong rate reaches the reader, which
    // starts from the first bytes read at the right one (handed on by the search, with their times).
    const opened = await openAtRate({ opener: d.opener, log: d.log, now: () => d.clock.now(), bauds: d.bauds, probe: { ...d.baudProbe, ...(d.askAt === false ? { askAt: false } : {}) } }, path, settings, opts.signal);
    let link = opened.link;
    const baud = opened.baud;
    // What the first bytes were, whatever the reader makes of them: a port forced to Nordic that
    // sends lines (or nothing, or garbage) is told what it does send, not that its frames failed.
    // A rate set by hand is judged on the same bytes: garbage there means the board prints at another one.
    const seen = new BaudJudge();
    const see = (chunk: Buffer) => {
      if (seen.bytes < SEEN_BYTES) seen.push(chunk);
    };
    let stopped = false;
    let lost = false;
    let lastDataAt = Date.now();
    const onLost = (l: ByteLink, why: string) => {
      if (stopped || lost || l !== link) return;
      lost = true;
      void l.close().catch(() => undefined);
      sink.interrupted(new CoreError('Disconnected', `${path} was disconnected${why}. Waiting for it to come back…`, { path, disconnected: true }));
      void reconnect();
    };
    const attach = (l: ByteLink) => {
      l.onData((chunk) => {
        lastDataAt = Date.now();
        see(chunk);
        reader.push(chunk, d.clock.now());
      });
      l.onClose(({ disconnected, error }) => onLost(l, disconnected ? ' (unplugged?)' : error ? `: ${error.message}` : ''));
    };
    const reconnect = async () => {
      while (!stopped) {
        await new Promise((r) => setTimeout(r, d.reconnectPollMs ?? 1000));
        if (stopped || !(await d.opener.exists(path))) continue;
        try {
          link = await d.opener.open(path, baud.rate);
          lost = false;
          lastDataAt = Date.now();
          attach(link);
          d.log.info('serial port back', { path });
          sink.resumed();
          return;
        } catch (err) {
          d.log.warn('reopening serial port failed; will retry', { path, error: String(err) });
        }
      }
    };
    for (const h of opened.heard) {
      see(h.chunk);
      reader.push(h.chunk, h.atMs);
    }
    attach(link);

    let snap: LineReaderSnapshot;
    try {
      const waits = { detectMs: d.detectTimeoutMs ?? 5000, slowMs: d.slowDetectMs ?? SLOW_DETECT_MS, sessionMs: d.nordicSessionWaitMs ?? 6000 };
      snap = await waitForWidth(reader, serial, waits, path, baud, seen, opts.signal);
    } catch (err) {
      stopped = true;
      await link.close();
      throw err;
    }
    if (isNordic()) measuresRate = false;
    let info = infoFrom(sourceId, snap, isNordic() ? null : settings.frequencyHz, settings.units, baud);
    const timer = setInterval(() => {
      // Unplugging removes the device node; some drivers (and pseudo-terminals) do not always
      // report the closed line to a reader that is idle at that moment, so a silent port whose
      // path is gone counts as disconnected too.
      if (!lost && Date.now() - lastDataAt > SILENT_CHECK_MS) {
        const l = link;
        void d.opener.exists(path).then((there) => {
          if (!there) onLost(l, ' (its device node is gone)');
        });
      }
      const s = reader.snapshot();
      const { names: _n, width: _w, units: _u, ...stats } = s;
      sink.stats(stats);
      const next = infoFrom(sourceId, s, isNordic() ? null : settings.frequencyHz, settings.units, baud);
      // Re-announce when the measured rate settles or moves by more than 1%: the plot's time axis
      // uses it; and when the axes change (a Nordic board's names come with its session info).
      const rateMoved = isNordic() ? next.rateHz !== info.rateHz : Math.abs(next.rateHz - info.rateHz) / info.rateHz > 0.01;
      if (rateMoved || next.axes.length !== info.axes.length || next.axes.some((a, i) => a.name !== info.axes[i]!.name || a.units !== info.axes[i]!.units)) {
        info = next;
        sink.info(info);
      }
    }, STATS_EVERY_MS);
    return {
      info,
      measuresRate,
      ...(serial && isNordic()
        ? { gapsBetween: (first: number, last: number) => serial.gapsBetween(first, last) }
        : { reading: { rate: () => reader.currentRate(), lostBefore: (line: number) => reader.lostBefore(line), judgedThrough: () => reader.judgedThrough() } }),
      async stop() {
        stopped = true;
        clearInterval(timer);
        await link.close();
      },
    };
  };
}

interface DetectWaits {
  detectMs: number;
  slowMs: number;
  sessionMs: number;
}

async function waitForWidth(reader: LineReaderPort, serial: SerialReaderPort | null, waits: DetectWaits, path: string, baud: BaudUsed, seen: BaudJudge, signal: AbortSignal): Promise<LineReaderSnapshot> {
  const { detectMs: timeoutMs, sessionMs: sessionWaitMs } = waits;
  const start = Date.now();
  let judging = !baud.detected;
  let end = start + timeoutMs;
  let nordicSince: number | null = null;
  for (;;) {
    if (signal.aborted) throw new CoreError('Busy', `Opening ${path} was cancelled.`);
    const s = reader.snapshot();
    if (judging) {
      // A rate set by hand that reads what a UART reads at a wrong one: never stream it, say so.
      // Judged on its first second (or its first readings): a boot banner at another rate before
      // the board's data (an ESP8266) does not make the set rate wrong.
      const judged = Date.now() - start >= WRONG_RATE_AFTER_MS || Date.now() > end;
      const v = seen.verdict(judged);
      if (v.verdict === 'data') judging = false;
      else if (v.verdict === 'garbage' && judged) throw wrongRate(path, baud.rate, seen);
      else if (s.width !== null && !judged) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      } else if (judged) judging = false;
    }
    if (serial?.protocol() === 'nordic') {
      // A Nordic board: its names and rate come with the session info, resent every few seconds.
      // Its samples are held meanwhile; past the wait they go on with placeholder names.
      nordicSince ??= Date.now();
      if (s.names !== null && s.width !== null) return s;
      if (Date.now() - nordicSince > sessionWaitMs && s.width !== null) {
        serial.release();
        return reader.snapshot();
      }
      end = Math.max(end, nordicSince + sessionWaitMs + 1000);
    } else if (s.width !== null) return s;
    // Clean bytes, lines ending, and the only one rejected the line opening cut: a slow board, not a
    // wrong one (a board that prints a prompt and waits ends no line, and is said as before).
    const cut = s.badByReason.partial ?? 0;
    const slow = serial?.protocol() !== 'nordic' && seen.junk === 0 && cut > 0 && s.badLines === cut;
    if (Date.now() > end && !(slow && Date.now() < start + waits.slowMs)) {
      const secs = Math.round(timeoutMs / 1000);
      if (serial?.protocol() === 'nordic') throw notNordic(path, secs, s, baud, seen);
      if (slow) {
        throw new CoreError('Unavailable', `Too few lines from ${path} within ${Math.round(waits.slowMs / 1000)} s to tell its columns: fewer than 3 whole lines after the one opening cut, all of them clean. Check that the board prints a reading at least every 5 s.`, { path, silent: false });
      }
      const what = s.badLines > 0 ? badLinesWords(s) : 'nothing readable arrived';
      // `silent`: not a byte came, which a board with the platform's firmware (AT) is until asked.
      throw new CoreError('Unavailable', `No numeric lines from ${path} within ${secs} s: ${what}. Check the baud rate (now ${baud.rate}${baud.detected ? ', found' : ''}) and that the board prints one reading per line${serial ? ' (or runs Nordic\'s data forwarder)' : ''}.`, { path, silent: s.goodLines === 0 && s.badLines === 0 });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A port read as Nordic's data forwarder (forced) that gave no samples: what it did send. Only a
 * stream whose frames check (or that had frames fail) is a Nordic board; anything else is said as
 * what it is, with the mode that reads it.
 */
function notNordic(path: string, secs: number, s: LineReaderSnapshot, baud: BaudUsed, seen: BaudJudge): CoreError {
  const v = seen.verdict(true);
  const details = { path, silent: seen.bytes === 0 };
  const rate = `the baud rate (now ${baud.rate}${baud.detected ? ', found' : ''})`;
  if ((v.verdict === 'data' && v.protocol === 'nordic') || s.badLines > 0) {
    const last = s.lastBadLine ? `, the last ${s.lastBadLine}` : '';
    return new CoreError('Unavailable', `${path} sends Nordic data-forwarder frames but no samples came within ${secs} s (${s.badLines} bad ${s.badLines === 1 ? 'frame' : 'frames'}${last}). Check ${rate} and that the board's sensor is sampling.`, details);
  }
  const other = 'not Nordic data-forwarder frames: record it with --mode lines or --mode auto (in the app: the port\'s "lines" mode)';
  if (v.verdict === 'data' && v.protocol === 'lines') return new CoreError('Unavailable', `${path} sends lines of numbers, ${other}.`, details);
  if (v.verdict === 'data' && v.protocol === 'at') return new CoreError('Unavailable', `${path} answers as the platform's firmware (AT), not as Nordic's data forwarder: record it with --mode at (in the app: the port's "at" mode).`, details);
  if (v.verdict === 'text') return new CoreError('Unavailable', `${path} sends text lines without readings, ${other}.`, details);
  if (v.verdict === 'garbage') return new CoreError('Unavailable', `What ${path} sends is neither Nordic data-forwarder frames nor text (${seen.junk} of ${seen.bytes} bytes are ones no board prints): check ${rate}, or let it be found with --baud auto.`, details);
  return new CoreError('Unavailable', `Nothing came from ${path} within ${secs} s. Check that the board is running Nordic's data forwarder, and ${rate}.`, details);
}

function wrongRate(path: string, baud: number, judge: BaudJudge): CoreError {
  return new CoreError(
    'Unavailable',
    `${path} at ${baud} baud reads what a serial port reads from a board at another rate (${judge.junk} of ${judge.bytes} bytes are ones no board prints). ` +
      'Let the rate be found: --baud auto on the command line, or Baud "Auto" in the port\'s settings. Nothing was recorded.',
    { path, wrongBaud: baud },
  );
}

function infoFrom(sourceId: string, s: LineReaderSnapshot, override: number | null, units: string[] | null, baud: BaudUsed): StreamInfo {
  const width = s.width ?? 1;
  const names = s.names ?? Array.from({ length: width }, (_, i) => `axis${i + 1}`);
  return {
    sourceId,
    axes: names.slice(0, width).map((name, i) => ({ name, units: units?.[i] ?? s.units?.[i] ?? 'N/A' })),
    // Until the rate is measured, 1 Hz keeps the plot sane; it is re-announced once known.
    rateHz: override ?? s.frequencyHz ?? 1,
    simulated: false,
    baud,
  };
}

export type { StreamSink };
