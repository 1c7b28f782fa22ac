import type { Sample, StreamInfo } from '../core/contract/contract.js';
import { PartedRecording, type TakePart } from '../core/capture/parted-recording.js';
import type { StreamHub } from '../core/stream/stream-hub.js';
import type { SerialReader } from '../core/serial/serial-reader.js';
import { describeGaps, takeGaps } from '../core/samples/quality/take-gaps.js';
import { SENSOR_TYPE_NAMES } from '../core/serial/nordic/units.js';
import { checkBoardClock } from '../core/samples/quality/rate-check.js';
import type { RecordLinesOptions } from './record-lines-options.js';
import { takeEnded } from './take-end.js';

/** How long a take with gaps waits for the board's next session info, which says which of them it dropped itself. */
const SESSION_INFO_WAIT_MS = 5500;

/**
 * `record serial` from a Nordic data-forwarder board: counted in the board's own samples at its
 * own rate, every gap known by seq (where and how many, the board's drops apart), and a board
 * restart ending one part of the take and starting the next (each its own sample).
 */
export async function recordNordicTake(o: RecordLinesOptions, hub: StreamHub, reader: SerialReader, sourceId: string, info: StreamInfo, baud: Record<string, unknown> = {}): Promise<{ samples: Sample[] }> {
  const session = reader.nordic.session;
  const hz = info.rateHz;
  const st = reader.nordicStats()!;
  process.stderr.write(
    `Nordic data forwarder${session?.deviceName ? ` "${session.deviceName}"` : ''}${session?.sensorType != null ? ` (sensor type ${session.sensorType}${SENSOR_TYPE_NAMES[session.sensorType] ? `, ${SENSOR_TYPE_NAMES[session.sensorType]}` : ''})` : ''}: ` +
      `${info.axes.length} channels, ${hz} Hz${session ? '' : ' (from its timestamps: no session info yet)'}, CRC-16 ${st.crc === true ? 'on' : st.crc === false ? 'off' : 'mixed'}${formText(st.valueForm)}\n`,
  );
  const startStats = reader.nordicStats()!;
  const rec = await PartedRecording.start(hub, o.store, {
    sourceId, label: o.label, category: o.category, metadata: o.metadata, deviceName: o.deviceName, deviceType: 'NORDIC_DATA_FORWARDER', lengthMs: o.lengthMs, rateHz: hz,
  });
  process.stderr.write(`Recording ${o.lengthMs} ms (${rec.target} samples) from ${o.path}…\n`);
  await takeEnded(o.lengthMs, rec);
  // Whose the gaps were (the board's `dr`) comes with its next session info.
  const gapsIn = (p: TakePart) => (p.firstReading !== null && p.lastReading !== null ? reader.gapsBetween(p.firstReading, p.lastReading) : []);
  const unsure = () => rec.parts.some((p) => gapsIn(p).some((g) => g.device < g.count));
  if (rec.interruption === null && unsure()) {
    const seen = reader.nordicStats()!.sessionInfos;
    const until = Date.now() + SESSION_INFO_WAIT_MS;
    while (Date.now() < until && reader.nordicStats()!.sessionInfos === seen) await new Promise((r) => setTimeout(r, 50));
  }
  const end = reader.nordicStats()!;
  await hub.stopAll();
  const rejectedByReason = Object.fromEntries(
    Object.entries(end.badByKind).map(([k, n]) => [k, n - (startStats.badByKind as Record<string, number>)[k]!] as const).filter(([, n]) => n > 0),
  );
  const rejected = end.badTotal - startStats.badTotal;
  const samples = await rec.finish({
    hmacKey: o.hmacKey,
    extra: (p) => {
      const gaps = p.firstReading === null ? [] : takeGaps(gapsIn(p), p.firstReading, hz);
      const lost = gaps.reduce((n, g) => n + g.count, 0);
      const device = gaps.reduce((n, g) => n + g.device, 0);
      return {
        port: o.path, ...baud, protocol: 'nordic', device_name: session?.deviceName ?? null, sensor_type: session?.sensorType ?? null,
        frequency_hz: hz, board_ts_hz: end.tsHz, crc: end.crc, value_form: end.valueForm,
        gaps, lost_samples: lost, device_drops: device, transport_lost: lost - device,
        // The numbers-per-line checks read these: here they are exact, not estimated.
        dropped_lines: lost, rejected_lines: rejected, rejected_by_reason: rejectedByReason,
        ...(p.restart ? { restarted: { previous_sid: p.restart['previousSid'] ?? null, sid: p.restart['sid'] ?? null } } : {}),
      };
    },
  });
  for (const [i, s] of samples.entries()) {
    const gaps = (s.extra.gaps ?? []) as ReturnType<typeof takeGaps>;
    process.stderr.write(`${samples.length > 1 ? `Part ${i + 1} of ${samples.length}: ` : ''}${s.extra.rows} samples at ${hz} Hz, ${describeGaps(gaps)}; ${rejected} bad frames${rejected ? ` (${Object.entries(rejectedByReason).map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}${formText(end.valueForm)}\n`);
  }
  // The quality check says it with each sample (rate-check.ts); said here too, where it is seen first.
  const clock = checkBoardClock(hz, end.tsHz)[0];
  if (clock) process.stderr.write(`${clock.message}\n`);
  if (samples.length > 1) process.stderr.write(`The board restarted during the take: its ${samples.length} parts are kept as separate samples (its time starts over at a restart).\n`);
  if (rec.interruption) process.stderr.write(`${(rec.interruption as Error).message.replace(' Waiting for it to come back…', '')} The samples recorded so far were kept as an incomplete sample.\n`);
  return { samples };
}

/** ", int32 micro-units (÷ 10⁶)" or ", float32"; nothing before a sample has been seen. */
function formText(form: 'float' | 'int' | null): string {
  return form === 'int' ? ', int32 micro-units (÷ 10⁶)' : form === 'float' ? ', float32' : '';
}
