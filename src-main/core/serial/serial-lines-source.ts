import type { StreamInfo } from '../contract/contract.js';
import type { Clock } from '../clock.js';
import { CoreError } from '../errors.js';
import type { Logger } from '../log.js';
import type { SourceFactory, StreamSink } from '../stream/stream-hub.js';
import type { ByteLink, SerialOpener } from './byte-link.js';
import type { LineReaderOverrides, LineReaderPort, LineReaderSnapshot } from './line-reader-port.js';
import type { PortRegistry } from './port-registry.js';

export interface SerialLinesDeps {
  registry: Pick<PortRegistry, 'settingsFor'>;
  opener: SerialOpener;
  clock: Clock;
  log: Logger;
  createReader(o: LineReaderOverrides): LineReaderPort;
  /** How long to wait for the first readable lines before saying so. */
  detectTimeoutMs?: number;
  reconnectPollMs?: number;
}

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
    const reader = d.createReader({ frequencyHz: settings.frequencyHz, axes: settings.axes });
    // A rate the person gave is the rate; only a measured one is measured from the arrival times.
    // The readings are counted either way: a take counts its losses between its own first and last.
    const measuresRate = settings.frequencyHz === null;
    reader.onRows((values, rows, _width, timing) => sink.rows(values, rows, timing));
    let link = await d.opener.open(path, settings.baudRate);
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
        reader.push(chunk, d.clock.now());
      });
      l.onClose(({ disconnected, error }) => onLost(l, disconnected ? ' (unplugged?)' : error ? `: ${error.message}` : ''));
    };
    const reconnect = async () => {
      while (!stopped) {
        await new Promise((r) => setTimeout(r, d.reconnectPollMs ?? 1000));
        if (stopped || !(await d.opener.exists(path))) continue;
        try {
          link = await d.opener.open(path, settings.baudRate);
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
    attach(link);

    let snap: LineReaderSnapshot;
    try {
      snap = await waitForWidth(reader, d.detectTimeoutMs ?? 5000, path, settings.baudRate, opts.signal);
    } catch (err) {
      stopped = true;
      await link.close();
      throw err;
    }
    let info = infoFrom(sourceId, snap, settings.frequencyHz, settings.units);
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
      const { names: _n, width: _w, ...stats } = s;
      sink.stats(stats);
      const next = infoFrom(sourceId, s, settings.frequencyHz, settings.units);
      // Re-announce when the measured rate settles or moves by more than 1%: the plot's time axis uses it.
      if (Math.abs(next.rateHz - info.rateHz) / info.rateHz > 0.01 || next.axes.length !== info.axes.length) {
        info = next;
        sink.info(info);
      }
    }, STATS_EVERY_MS);
    return {
      info,
      measuresRate,
      reading: { rate: () => reader.currentRate(), lostBefore: (line) => reader.lostBefore(line), judgedThrough: () => reader.judgedThrough() },
      async stop() {
        stopped = true;
        clearInterval(timer);
        await link.close();
      },
    };
  };
}

async function waitForWidth(reader: LineReaderPort, timeoutMs: number, path: string, baud: number, signal: AbortSignal): Promise<LineReaderSnapshot> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (signal.aborted) throw new CoreError('Busy', `Opening ${path} was cancelled.`);
    const s = reader.snapshot();
    if (s.width !== null) return s;
    if (Date.now() > end) {
      const what = s.badLines > 0 ? `${s.badLines} lines arrived but none were numbers (last: ${JSON.stringify(s.lastBadLine)})` : 'nothing readable arrived';
      throw new CoreError('Unavailable', `No numeric lines from ${path} within ${Math.round(timeoutMs / 1000)} s: ${what}. Check the baud rate (now ${baud}) and that the board prints one reading per line.`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function infoFrom(sourceId: string, s: LineReaderSnapshot, override: number | null, units: string[] | null): StreamInfo {
  const width = s.width ?? 1;
  const names = s.names ?? Array.from({ length: width }, (_, i) => `axis${i + 1}`);
  return {
    sourceId,
    axes: names.slice(0, width).map((name, i) => ({ name, units: units?.[i] ?? 'N/A' })),
    // Until the rate is measured, 1 Hz keeps the plot sane; it is re-announced once known.
    rateHz: override ?? s.frequencyHz ?? 1,
    simulated: false,
  };
}

export type { StreamSink };
