import type { Sample } from '../core/contract/contract.js';
import { CONFIRM_MAX_MS, StreamRecording } from '../core/capture/stream-recording.js';
import { countingRate, declaredTake } from '../core/capture/take-length.js';
import { CoreError } from '../core/errors.js';
import { baudSentence } from '../core/serial/baud/open-at-rate.js';
import { createSerialReader } from '../core/serial/serial-reader.js';
import { DEFAULT_PORT_SETTINGS } from '../core/serial/port-registry.js';
import { serialLinesFactory } from '../core/serial/serial-lines-source.js';
import { StreamHub } from '../core/stream/stream-hub.js';
import type { RecordLinesOptions } from './record-lines-options.js';
import { takeEnded } from './take-end.js';
import { recordNordicTake } from './record-serial-nordic.js';

export type { RecordLinesOptions };

/** How long the stream is read after a full take at least, before its rate and losses are said. */
const CONFIRM_MIN_MS = 400;

/**
 * Headless capture of a numeric-line board: the same source, hub and recorder the app uses, so
 * the CLI and the UI cannot disagree about what a recording is.
 */
export async function recordLines(o: RecordLinesOptions): Promise<{ sample: Sample; parts?: Sample[] }> {
  const hub = new StreamHub(o.bus, o.clock);
  const settings = { ...DEFAULT_PORT_SETTINGS, baudRate: o.baudRate, frequencyHz: o.frequencyHz, axes: o.axes, units: o.units };
  const reader = createSerialReader({ frequencyHz: o.frequencyHz, axes: o.axes, units: null, protocol: o.protocol ?? 'lines' });
  hub.register('serial:', serialLinesFactory({ registry: { settingsFor: () => settings }, opener: o.opener, clock: o.clock, log: o.log, createReader: () => reader,
    // Only --mode auto asks a silent board whether it runs the platform's firmware (AT): lines and
    // nordic read the board and never write to it.
    askAt: o.protocol === 'auto', ...(o.bauds ? { bauds: o.bauds } : {}) }));
  const sourceId = `serial:${o.path}`;
  const info = await hub.start(sourceId);
  if (info.baud) process.stderr.write(`${baudSentence(info.baud)}\n`);
  const baud = info.baud ? { baud: info.baud.rate, baud_detected: info.baud.detected } : {};
  const misfit = namesMisfit(o, reader.snapshot().width ?? info.axes.length, reader.protocol() === 'nordic');
  if (misfit) {
    // Said before the take starts (nothing recorded yet, nothing to keep): a name filled in or one
    // dropped would leave a sample whose axes are not the ones the person meant.
    await hub.stopAll();
    throw new CoreError('InvalidArguments', misfit);
  }
  if (reader.protocol() === 'nordic') {
    const { samples } = await recordNordicTake(o, hub, reader, sourceId, info, baud);
    return { sample: samples.at(-1)!, parts: samples };
  }
  process.stderr.write(`Detected ${info.axes.length} axes: ${info.axes.map((a) => a.name).join(', ')}\n`);
  // Counted in the board's readings at the given rate, or at the reader's estimate as it settles.
  const length = { ms: o.lengthMs, rateHz: () => countingRate(reader.currentRate()) };
  const rec = await StreamRecording.start(hub, o.store, { sourceId, label: o.label, category: o.category, metadata: o.metadata, deviceName: o.deviceName, deviceType: 'SERIAL_LINES', length });
  const startStats = reader.snapshot();
  process.stderr.write(`Recording ${o.lengthMs} ms from ${o.path}…\n`);

  await takeEnded(o.lengthMs, { onInterrupt: (cb) => rec.onInterrupt(cb), onFull: (cb) => rec.length!.onFull(cb) });
  // A loss just before the take's end shows only in the readings after it: they are read (not
  // kept) until the reader has judged the take's last reading, then its losses are counted.
  // At least CONFIRM_MIN_MS: the rate declared is the estimate after the take (see declaredTake),
  // and after a host that stalled mid-take the arrivals that follow make it more precise.
  const lost = await rec.lostInTake(hub.reading(sourceId), CONFIRM_MAX_MS, rec.length!.full ? CONFIRM_MIN_MS : 0);
  const s = reader.snapshot();
  await hub.stopAll();
  const take = o.frequencyHz ? { hz: o.frequencyHz, rows: rec.rows } : declaredTake(o.lengthMs, rec.rows, rec.length!.full ? rec.length!.countedHz : null, s.frequencyHz);
  const frequencyHz = take.hz;
  const rejected = s.badLines - startStats.badLines;
  const droppedLines = lost ?? Math.max(0, s.droppedLines - startStats.droppedLines);
  // Counted over the recording only, like the total: the cut first line and whatever came while the
  // stream was being detected are not part of the take.
  const rejectedByReason = Object.fromEntries(
    Object.entries(s.badByReason)
      .map(([k, n]) => [k, n - ((startStats.badByReason as Record<string, number>)[k] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
  const rejectedText = `${rejected} rejected lines` +
    (rejected ? ` (${Object.entries(rejectedByReason).map(([k, n]) => `${k}: ${n}`).join(', ')}; last: ${JSON.stringify(s.lastBadLine)})` : '');
  if (frequencyHz === null) {
    // The rows are what the person came for; a rate can be given afterwards, a lost take cannot be had again.
    process.stderr.write(`Could not measure the sampling frequency from ${s.goodLines} lines (${rejectedText}).\n`);
    const sample = await rec.finish({
      intervalMs: null,
      incomplete: rec.interruption !== null,
      extra: { rejected_lines: rejected, rejected_by_reason: rejectedByReason, frequency_hz: null, jitter_ms: s.jitterMs, dropped_lines: droppedLines, port: o.path, ...baud },
    });
    process.stderr.write(
      `The ${sample.extra.rows} rows were kept as sample ${sample.id}, waiting for its rate. If you know the board's rate, run:\n` +
        `  capture-desk samples set-rate ${sample.id} --frequency HZ${o.dataDirFlag ? ` --data-dir ${JSON.stringify(o.dataDirFlag)}` : ''}\n` +
        'Next time pass --frequency HZ when the stream may be noisy.\n',
    );
    return { sample };
  }
  process.stderr.write(
    `Frequency ${frequencyHz.toFixed(3)} Hz${o.frequencyHz ? ' (given)' : ` (measured${s.suggestedHz ? `; ${s.suggestedHz} Hz is within 0.1%` : ''})`}, ` +
      `jitter ${s.jitterMs?.toFixed(2) ?? '?'} ms, ~${droppedLines} dropped lines, ${rejectedText}\n`,
  );
  const sample = await rec.finish({
    intervalMs: 1000 / frequencyHz,
    rows: take.rows,
    hmacKey: o.hmacKey,
    incomplete: rec.interruption !== null,
    extra: { rejected_lines: rejected, rejected_by_reason: rejectedByReason, frequency_hz: frequencyHz, jitter_ms: s.jitterMs, dropped_lines: droppedLines, port: o.path, ...baud },
  });
  if (rec.interruption) process.stderr.write(`${(rec.interruption as Error).message.replace(' Waiting for it to come back…', '')} The ${sample.extra.rows} rows recorded so far were kept as an incomplete sample.\n`);
  return { sample };
}

/** --axes or --units that do not give one per column the board sends: the sentence that says so; null when they fit. */
function namesMisfit(o: RecordLinesOptions, width: number, nordic: boolean): string | null {
  const sends = nordic ? `${width} ${width === 1 ? 'channel' : 'channels'}` : `${width} ${width === 1 ? 'value' : 'values'} per line`;
  if (o.axes && o.axes.length !== width) {
    return `--axes gives ${o.axes.length} ${o.axes.length === 1 ? 'name' : 'names'} (${o.axes.join(', ')}) but ${o.path} sends ${sends}. Give ${width} ${width === 1 ? 'name' : 'names'}, or leave --axes out to use the board's own. Nothing was recorded.`;
  }
  if (o.units && o.units.length !== width) {
    return `--units gives ${o.units.length} ${o.units.length === 1 ? 'unit' : 'units'} (${o.units.join(', ')}) but ${o.path} sends ${sends}. Give one per axis (${width}), or leave --units out. Nothing was recorded.`;
  }
  return null;
}
