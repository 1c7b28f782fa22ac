import { systemClock } from '../core/clock.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import type { Category, Sample } from '../core/contract/contract.js';
import { EventBus } from '../core/event-bus.js';
import { stderrLogger } from '../core/log.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { AT_BAUD } from '../core/serial/port-registry.js';
import { notAPort } from '../core/serial/not-a-port.js';
import { serialportOpener } from '../core/serial/serialport-opener.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { UsageError } from './args.js';
import { CoreError } from '../core/errors.js';
import { booleans, parseCommand, strings } from './flags.js';
import { parseBaudFlag, parseCategory, parseIntFlag, parseLabel, parseMetadata } from './options.js';
import { openBaudMemory } from './serial-bauds.js';
import { keptLine, needsAttention, prepareUpload, RECORD_OPTIONS, sampleLine, uploadOne } from './record-common.js';
import { recordAt } from './record-serial-at.js';
import { recordLines } from './record-serial-lines.js';

export const RECORD_SERIAL_USAGE = `Usage: capture-desk record serial --port PATH [options]

Records one sample from a board over serial, like the platform's data forwarder, and saves it in
the data directory. What was detected (axes, frequency, jitter, rejected lines) goes to stderr;
stdout gets one JSON line describing the saved sample. Exit 0 only when the sample is saved
complete (and, with --upload, confirmed by the platform). Nothing that arrived is thrown away:
a take that needs attention (cut short, or the rate could not be measured) is kept, its JSON line
has "needs_attention": true and a "note" saying what to do, and the exit code is 1. A rate can be
given afterwards with "capture-desk samples set-rate ID --frequency HZ".

Options:
  --port PATH          serial port, e.g. /dev/ttyACM0, COM5, or a pseudo-terminal
  --baud auto|N        baud rate: auto (default) finds it from what the board prints (the rate
                       remembered for the board first, then 115200, 9600, 57600, 230400, ...);
                       N forces it, and a rate that reads another rate's garbage stops with exit 1.
                       The JSON line says "baud" and "baud_detected". --mode at: 115200 unless set
  --mode auto|lines|at|nordic
                       auto (default): told from the stream: numbers per line, or Nordic's
                       data forwarder (COBS/CBOR frames); a port silent for 5 s is asked
                       whether it runs the platform's firmware (AT);
                       lines: a board printing numbers, one reading per line;
                       at: the platform's official firmware (AT commands);
                       nordic: Nordic's data forwarder (rate, names and losses from the board)
  --frequency HZ       sampling frequency (default: measured from the stream)
  --axes A,B,...       axis names (default: from a header line or name:value pairs, else
                       value1..N; a Nordic board names its own channels; not with --mode at,
                       whose firmware names its sensors' axes)
  --units U,U,...      units per axis (default N/A; not with --mode at)
  --length-ms N        record for N ms (default 10000; lines mode stops early on Ctrl+C)
  --label L            label (default: unlabeled)
  --category C         training (default), testing or post-processing
  --metadata JSON      key/values for the sample, e.g. '{"subject":"ana"}'
  --hmac-key K         sign the sample with the project's HMAC key (AT mode: sent to the device)
  --sensor NAME        AT mode: which sensor to sample (default: the first the device lists)
  --data-dir DIR       data directory (default: ${defaultDataDir()})
  --upload             upload it too, with:
  --ingestion-url URL    the ingestion service
  --api-key K            the project API key (or CAPTURE_DESK_API_KEY, or the keychain)
  -h, --help           show this help
`;

export async function recordSerialCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, RECORD_SERIAL_USAGE, {
    ...strings('port', 'baud', 'frequency', 'axes', 'units', 'hmac-key', 'sensor'),
    mode: { type: 'string', default: 'auto' },
    ...RECORD_OPTIONS,
  });
  if (!parsed) return 0;
  const { values: v } = parsed;
  if (!v.port) throw new UsageError('--port PATH is required (e.g. /dev/ttyACM0).');
  if (v.mode !== 'auto' && v.mode !== 'lines' && v.mode !== 'at' && v.mode !== 'nordic') throw new UsageError(`--mode must be "auto", "lines", "at" or "nordic"; got "${v.mode}".`);
  await checkPortPath(v.port);
  const baudRate = parseBaudFlag(v.baud);
  const frequencyHz = v.frequency === undefined ? null : Number(v.frequency);
  if (frequencyHz !== null && !(frequencyHz > 0 && frequencyHz <= 100_000)) throw new UsageError(`--frequency must be a number of hertz above 0; got "${v.frequency}".`);
  const axes = v.axes === undefined ? null : v.axes.split(',').map((a) => a.trim());
  if (axes?.some((a) => a === '')) throw new UsageError('--axes must be names separated by commas, e.g. accX,accY,accZ.');
  const twice = axes?.find((a, i) => axes.indexOf(a) !== i);
  if (twice !== undefined) throw new UsageError(`--axes names each axis once; "${twice}" is given twice.`);
  const units = v.units === undefined ? null : v.units.split(',').map((u) => u.trim());
  if (axes && units && units.length !== axes.length) throw new UsageError(`--units gives ${units.length} ${units.length === 1 ? 'unit' : 'units'} for the ${axes.length} axes of --axes: give one per axis.`);
  // Only a board with the platform's firmware has sensors to choose from; lines and nordic would ignore it.
  if (v.sensor !== undefined && v.mode !== 'at' && v.mode !== 'auto') throw new UsageError(`--sensor chooses the sensor of a board running the platform's firmware: it works with --mode at (or auto), not with --mode ${v.mode}, where the board chooses what it sends.`);
  // A board with the platform's firmware names its sensors' axes and units itself: taken silently, a --axes would be lost.
  const named = [axes && '--axes', units && '--units'].filter(Boolean).join(' and ');
  if (named && v.mode === 'at') throw new UsageError(`${named} name${axes && units ? '' : 's'} what a streaming board sends; a board with the platform's firmware (--mode at) names its sensors' axes and units itself. Leave ${named} out, and choose its sensor with --sensor.`);
  const lengthMs = parseIntFlag('--length-ms', v['length-ms'], 10_000, 1, 24 * 3600_000);
  const category = parseCategory(v.category, ['training', 'testing', 'post-processing']) as Category;
  const metadata = parseMetadata(v.metadata);
  const label = parseLabel(v.label) ?? null;

  const log = stderrLogger({ command: 'record serial' });
  const dataDir = await ensureDataDir(v['data-dir'] ?? defaultDataDir());
  const settings = (await SettingsStore.open(dataDir, log)).get();
  const upload = await prepareUpload(v, settings.projectId);
  const store = await SampleStore.open(dataDir, log);
  const bauds = baudRate === 'auto' ? await openBaudMemory(dataDir, log) : undefined;
  try {
    const common = { store, log, path: v.port, baudRate: baudRate === 'auto' ? AT_BAUD : baudRate, lengthMs, label, category, metadata, hmacKey: v['hmac-key'], deviceName: settings.deviceName };
    let result: { sample: Sample; parts?: Sample[] };
    const streamed = (protocol: 'auto' | 'lines' | 'nordic') =>
      recordLines({ ...common, baudRate, ...(bauds ? { bauds } : {}), opener: serialportOpener, clock: systemClock, bus: new EventBus(), frequencyHz, axes, units, dataDirFlag: v['data-dir'], protocol });
    try {
      if (v.mode === 'at') result = await recordAt({ ...common, sensor: v.sensor, frequencyHz });
      else if (v.mode !== 'auto') result = await streamed(v.mode);
      else {
        try {
          result = await streamed('auto');
        } catch (err) {
          // Not a byte in 5 s: a board with the platform's firmware says nothing until asked. With
          // --baud auto it was asked at every rate already: it answered at `at` or at none.
          const details = err instanceof CoreError ? (err.details as { silent?: boolean; at?: boolean; baud?: number; askedAt?: boolean } | undefined) : undefined;
          if (!(err instanceof CoreError) || !details?.silent || details.askedAt) throw err;
          const atBaud = details.at && details.baud ? details.baud : common.baudRate;
          process.stderr.write(details.at ? `${v.port} answers AT commands at ${atBaud} baud: recording with the platform's firmware…\n` : `Nothing came from ${v.port}: asking it whether it runs the platform's firmware (AT)…\n`);
          if (named) process.stderr.write(`${named} ${axes && units ? 'are' : 'is'} not used if it does: that firmware names its sensors' axes and units itself.\n`);
          try {
            result = await recordAt({ ...common, baudRate: atBaud, sensor: v.sensor, frequencyHz });
          } catch (atErr) {
            // Neither: say what was seen, as a lines board would have been told, and what AT said.
            if (details.at) throw atErr;
            throw new CoreError(err.code, `${err.message} Nor did it answer as the platform's firmware (AT): ${(atErr as Error).message}`);
          }
        }
      }
    } catch (err) {
      const kept = keptLine(err);
      if (kept) process.stdout.write(kept);
      throw gonePort(err, v.port);
    }
    // A Nordic board that restarted mid-take leaves one sample per part: each gets its line.
    for (const part of result.parts?.slice(0, -1) ?? []) {
      let p = part;
      if (upload && !needsAttention(p)) p = await uploadOne(store, log, upload, p.id);
      process.stdout.write(sampleLine(p, dataDir));
    }
    let sample = result.sample;
    if (upload && !needsAttention(sample)) sample = await uploadOne(store, log, upload, sample.id);
    process.stdout.write(sampleLine(sample, dataDir));
    if (needsAttention(sample)) return 1;
    return upload && sample.state !== 'uploaded' ? 1 : 0;
  } finally {
    store.close();
  }
}

const LIST_PORTS = '"capture-desk devices serial" lists the serial ports there are';

/**
 * A --port that names a file or a folder is a usage mistake, said before anything is opened: the
 * system's own answer ("Inappropriate ioctl for device", or "No serial port … plugged in?" for a
 * folder) would send the person looking at the board. Windows ports (COM5) are no files: not looked at.
 */
async function checkPortPath(port: string): Promise<void> {
  const what = await notAPort(port);
  if (what) throw new UsageError(`--port ${port} is a ${what}, not a serial port. Give the board's port, e.g. --port /dev/ttyACM0 (${LIST_PORTS}).`);
}

/** A port that is not there: the command line's way to see which are, when the system named none in its place. */
function gonePort(err: unknown, port: string): unknown {
  if (!(err instanceof CoreError) || err.code !== 'NotFound') return err;
  const d = err.details as { movedTo?: string; boards?: string[] } | undefined;
  if (d?.movedTo || d?.boards) return err;
  return new CoreError('NotFound', `No serial port at ${port}. Is the board plugged in? Check the path: ${LIST_PORTS}.`, err.details);
}
