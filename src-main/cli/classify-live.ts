import { systemClock } from '../core/clock.js';
import type { Category, Sample } from '../core/contract/contract.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { EventBus } from '../core/event-bus.js';
import { stderrLogger, type Logger } from '../core/log.js';
import { CatchKeeper } from '../core/model/catch-keeper.js';
import { isBackgroundLabel } from '../core/model/catch-spans.js';
import { saveCaught } from '../core/model/caught-sample.js';
import { LiveModel, percentile, type LiveRows, type WindowMeta } from '../core/model/live-model.js';
import { ModelRegistry } from '../core/model/model-registry.js';
import { modelWorkerSpawner } from '../core/model/model-runner.js';
import type { ModelVerdict } from '../core/contract/model-schema.js';
import { ModelSession } from '../core/model/model-session.js';
import { settledRate } from '../core/model/settled-rate.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { OthersInFlight } from '../core/upload/others-in-flight.js';
import { UploadQueue } from '../core/upload/upload-queue.js';
import { UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { parseBaudFlag, parseCategory, parseIntFlag } from './options.js';
import { openBaudMemory } from './serial-bauds.js';
import { baudSentence, type BaudUsed } from '../core/serial/baud/open-at-rate.js';
import { TAKE_KEY_REFUSED_HINT } from './key-advice.js';
import { prepareUpload } from './record-common.js';

export const CLASSIFY_LIVE_USAGE = `Usage: capture-desk classify live --model NAME (--port PATH [--mode M] [--baud N] | --microphone [NAME]) [options]

  Runs an added model (see "capture-desk model add") on a live board or microphone: windows of
  the model's length slide over the stream, and each gets the model's verdict. Nothing is
  uploaded or saved unless --catch is given.

  --model NAME        the model to run
  --port PATH         a streaming board (e.g. /dev/ttyACM0): one printing numbers, one reading
                      per line, or one running Nordic's data forwarder. A board with the
                      platform's official firmware (AT) does not stream: record a sample from it
                      ("record serial --mode at") and classify that ("samples classify ID --model NAME")
  --mode auto|lines|nordic
                      as for "record serial": auto (default): told from the stream; lines: numbers
                      per line; nordic: Nordic's data forwarder (its rate and names from the board)
  --baud auto|N       baud rate: auto (default) finds it from what the board prints (the rate
                      remembered for the board first); N forces it, and stops with exit 1 if it
                      reads another rate's garbage
  --frequency HZ      a lines board's rate, when known (default: measured from the stream; a Nordic
                      board says its own)
  --microphone [NAME] a microphone (an id from "capture-desk devices audio"; default: the one
                      recordings use), captured at the model's rate
  --stride-ms N       a window starts every N ms (default: a quarter window; for a microphone on
                      a build with continuous mode, its slice)
  --seconds S         stop after S seconds (default: run until Ctrl+C)
  --threshold X       a top score below X is "uncertain" (default 0.6)
  --data-dir DIR      data directory (default: ${defaultDataDir()})
  --json              one JSON line per window:
                        {"t_ms","label","confidence","scores":{label:value},"anomaly","classify_ms"}
                      (t_ms = the window's end on the stream's time axis: readings since the
                      first × the interval, the ones before the model started included; catch
                      mode's start_ms/end_ms are on the same axis),
                      after a first line for a board: {"source","axes","rate_hz","baud","baud_detected"},
                      then {"summary":true,"windows","by_label","skipped","classify_ms_p50","classify_ms_p95"}

  Catch mode, keeping what the model gets wrong:
  --catch LABEL       what is happening now ("I am doing LABEL"): every window whose top label
                      differs, or whose confidence is under the threshold, is saved as a sample
                      labelled LABEL (the window plus a margin each side; misses that touch merge).
                      With LABEL noise, unknown or background, windows where the model says
                      another label are kept (its false positives). One JSON line per sample:
                        {"caught":true,"sample_id","start_ms","end_ms","model_said","confidence"}
  --category C        training (default), testing or post-processing
  --margin-ms N       margin each side of a missed window (default 500)
  --per-minute N      at most N caught samples a minute (default 20)
  --upload            upload caught samples as they are saved, with --ingestion-url URL and an
                      API key (--api-key, CAPTURE_DESK_API_KEY or the keychain)

  Exit 0 after --seconds or on Ctrl+C; 1 with a sentence when the source or the model fails.
`;

/** `--microphone` may come without a name: parseArgs needs a value, so "" stands for "the usual one". */
function normaliseMicrophone(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--microphone' && (i + 1 >= argv.length || argv[i + 1]!.startsWith('--'))) out.push('--microphone=');
    else out.push(a);
  }
  return out;
}

export async function classifyLiveCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(normaliseMicrophone(argv), CLASSIFY_LIVE_USAGE, {
    ...strings('model', 'port', 'mode', 'baud', 'frequency', 'microphone', 'stride-ms', 'seconds', 'threshold', 'data-dir'),
    ...strings('catch', 'category', 'margin-ms', 'per-minute', 'ingestion-url', 'api-key'), // catch mode
    ...booleans('json', 'upload'),
  }, { positionals: true });
  if (!parsed) return 0;
  const { values: v, positionals } = parsed;
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals.join(' ')}".`);
  if (!v.model) throw new UsageError('--model NAME is required (see "capture-desk model list").');
  if ((v.port === undefined) === (v.microphone === undefined)) throw new UsageError('Give one source: --port PATH (a board) or --microphone [NAME].');
  const mode = parseMode(v.mode, v.port !== undefined);
  const strideMs = v['stride-ms'] === undefined ? null : parseIntFlag('--stride-ms', v['stride-ms'], 0, 1, 600_000);
  const seconds = v.seconds === undefined ? null : Number(v.seconds);
  if (seconds !== null && !(seconds > 0)) throw new UsageError(`--seconds must be a number above 0; got "${v.seconds}".`);
  const threshold = v.threshold === undefined ? 0.6 : Number(v.threshold);
  if (!(threshold >= 0 && threshold <= 1)) throw new UsageError(`--threshold must be a number from 0 to 1; got "${v.threshold}".`);
  const frequencyHz = v.frequency === undefined ? null : Number(v.frequency);
  if (frequencyHz !== null && !(frequencyHz > 0 && frequencyHz <= 100_000)) throw new UsageError(`--frequency must be a number of hertz above 0; got "${v.frequency}".`);
  const catchLabel = v.catch === undefined ? null : v.catch.trim();
  if (catchLabel === '') throw new UsageError('--catch needs the label of what is happening, e.g. --catch wave.');
  if (catchLabel === null && (v.category !== undefined || v['margin-ms'] !== undefined || v.upload)) throw new UsageError('--category, --margin-ms and --upload go with --catch LABEL.');
  const category = parseCategory(v.category, ['training', 'testing', 'post-processing']) as Category;
  const marginMs = parseIntFlag('--margin-ms', v['margin-ms'], 500, 0, 60_000);
  const perMinute = parseIntFlag('--per-minute', v['per-minute'], 20, 1, 10_000);

  const log = stderrLogger({ command: 'classify live' });
  const dataDir = await ensureDataDir(v['data-dir'] ?? defaultDataDir());
  const settings = (await SettingsStore.open(dataDir, log)).get();
  const upload = catchLabel ? await prepareUpload(v, settings.projectId) : null;
  const registry = new ModelRegistry(dataDir, modelWorkerSpawner(), log);
  const session = await ModelSession.open<WindowMeta>(registry, v.model, modelWorkerSpawner(), log);
  const d = session.entry.description;
  const cleanup: Array<() => Promise<void> | void> = [() => session.close()];
  try {
    const source = v.port !== undefined
      ? await openBoard(v.port, parseBaudFlag(v.baud), dataDir, frequencyHz, mode, log, cleanup)
      : await openMicrophone(v.microphone ?? '', d.frequencyHz, dataDir, log, cleanup);
    const store = catchLabel ? await SampleStore.open(dataDir, log) : null;
    if (store) cleanup.push(() => store.close());
    const queue = upload && store
      ? new UploadQueue({ store, log, maxAttempts: 6, backoff: { baseMs: 500, maxMs: 10_000 }, target: async () => upload, keyRefusedHint: TAKE_KEY_REFUSED_HINT, othersInFlight: new OthersInFlight(Date.now) })
      : null;
    if (queue) {
      queue.start();
      // Cleanups run last-in first: this one settles the uploads before the store above is closed
      // (a transaction on a closed store aborted the whole process in libsql).
      cleanup.push(async () => {
        await queue.whenIdle();
        await queue.stop();
        // Said as record's uploadOne says it: the person learns why the caught samples are not on the platform.
        const paused = queue.pausedReason();
        if (paused !== null) process.stderr.write(`Upload stopped: ${paused}\n`);
      });
    }

    let failure: string | null = null;
    let finish: () => void = () => {};
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const keeper = catchLabel && store
      ? new CatchKeeper(
          { expected: catchLabel, background: isBackgroundLabel(catchLabel), threshold, marginMs },
          { perMinuteCap: perMinute, axes: source.axisNames.length, rateHz: source.rateHz, windowMs: d.windowMs },
          async (span, values, rows) => {
            const src = { audio: source.audio, rateHz: source.rateHz, sensors: source.axisNames.map((name) => ({ name, units: 'N/A' })), deviceType: 'SERIAL_LINES' };
            return saveCaught(store, src, span, { values, count: rows }, { model: session.entry, label: catchLabel, category, queue: queue !== null });
          },
          {
            caught: (span, sample: Sample) => {
              if (queue) queue.enqueue([sample.id]);
              const line = { caught: true, sample_id: sample.id, start_ms: span.startMs, end_ms: span.endMs, model_said: span.worst.label, confidence: span.worst.confidence };
              process.stdout.write(v.json ? JSON.stringify(line) + '\n' : `caught ${sample.id}: ${span.startMs}–${span.endMs} ms, ${span.note}\n`);
            },
            failed: (_span, err) => process.stderr.write(`A caught span could not be saved: ${err instanceof Error ? err.message : String(err)}\n`),
          },
        )
      : null;

    const live = new LiveModel(session, source, { strideMs, threshold }, {
      verdict: (w) => {
        process.stdout.write(v.json ? verdictJson(w) : verdictText(w));
        keeper?.verdict(w);
      },
      windowError: (index, code) => process.stderr.write(`Window ${index}: the model returned error ${code}${code === -5 ? ' (its signal processing failed)' : ''}.\n`),
      restarted: (reason) => process.stderr.write(`The model stopped (${reason}); it was started again.\n`),
      failed: (reason) => {
        failure = reason;
        finish();
      },
      ended: (err) => {
        // The hub says an unplugged board is waited for; this command does not wait, it ends.
        const why = (err instanceof Error ? err.message : String(err)).replace(/\s*Waiting for it to come back…?$/, '');
        failure = `Classifying stopped: ${why}`;
        finish();
      },
      rows: keeper ? (values, rows, at) => keeper.rows(values, rows, at) : undefined,
    });
    // A board's first line says what it is read as (once the model takes it: a refusal prints nothing).
    const baud = 'baud' in source ? (source.baud as BaudUsed | undefined) : undefined;
    if (v.json && baud) process.stdout.write(JSON.stringify({ source: source.name, axes: source.axisNames, rate_hz: r3(source.rateHz), baud: baud.rate, baud_detected: baud.detected }) + '\n');
    for (const note of live.fit.notes) process.stderr.write(note + '\n');
    process.stderr.write(`Classifying ${source.name} with "${session.entry.name}": windows of ${d.windowMs} ms every ${live.fit.strideMs} ms${seconds ? ` for ${seconds} s` : ' until Ctrl+C'}.\n`);

    const timer = seconds === null ? null : setTimeout(finish, seconds * 1000);
    process.once('SIGINT', finish);
    await finished;
    if (timer) clearTimeout(timer);
    process.off('SIGINT', finish);
    await live.stop();
    await keeper?.flush();

    const summary = {
      summary: true, windows: live.windows, by_label: live.byLabel, skipped: live.skipped,
      classify_ms_p50: r3(percentile(live.classifyMs, 50)), classify_ms_p95: r3(percentile(live.classifyMs, 95)),
      ...(keeper ? { caught: keeper.saved.length, caught_summary: keeper.summary(), capped: keeper.catcher.capped } : {}),
      ...(live.errors ? { window_errors: live.errors } : {}),
    };
    process.stdout.write(v.json ? JSON.stringify(summary) + '\n' : summaryText(summary, keeper?.summary() ?? null));
    if (failure) {
      process.stderr.write(`${failure}\n`);
      return 1;
    }
    return keeper && keeper.failures.length ? 1 : 0;
  } finally {
    for (const c of cleanup.reverse()) await c();
  }
}

/** `--mode`, meaning what it means for `record serial`, less AT: that firmware has no stream to classify. */
function parseMode(mode: string | undefined, board: boolean): 'auto' | 'lines' | 'nordic' {
  if (mode === undefined) return 'auto';
  if (!board) throw new UsageError('--mode goes with --port (a board), not with --microphone.');
  if (mode === 'at') throw new UsageError(`--mode at: the platform's official firmware (AT) records a sample when asked and does not stream, so it cannot be classified live. Record one ("capture-desk record serial --mode at --port PATH"), then classify it ("capture-desk samples classify ID --model NAME").`);
  if (mode !== 'auto' && mode !== 'lines' && mode !== 'nordic') throw new UsageError(`--mode must be "auto", "lines" or "nordic"; got "${mode}".`);
  return mode;
}

async function openBoard(path: string, baudRate: number | 'auto', dataDir: string, frequencyHz: number | null, protocol: 'auto' | 'lines' | 'nordic', log: Logger, cleanup: Array<() => Promise<void> | void>): Promise<LiveRows & { baud: BaudUsed | undefined }> {
  const { StreamHub } = await import('../core/stream/stream-hub.js');
  const { serialLinesFactory } = await import('../core/serial/serial-lines-source.js');
  const { createSerialReader } = await import('../core/serial/serial-reader.js');
  const { CoreError } = await import('../core/errors.js');
  const { DEFAULT_PORT_SETTINGS } = await import('../core/serial/port-registry.js');
  const { serialportOpener } = await import('../core/serial/serialport-opener.js');
  const bus = new EventBus();
  const hub = new StreamHub(bus, systemClock);
  const settings = { ...DEFAULT_PORT_SETTINGS, baudRate, frequencyHz };
  // Kept to ask, once the stream is told, whether the board is a Nordic one (which says its rate).
  let reader: ReturnType<typeof createSerialReader> | null = null;
  const bauds = baudRate === 'auto' ? await openBaudMemory(dataDir, log) : undefined;
  hub.register('serial:', serialLinesFactory({ registry: { settingsFor: () => settings }, opener: serialportOpener, clock: systemClock, log, askAt: protocol === 'auto', ...(bauds ? { bauds } : {}), createReader: () => (reader = createSerialReader({ frequencyHz, axes: null, protocol })) }));
  const sourceId = `serial:${path}`;
  // Listening before the start: the first estimates come while the port opens.
  const settled = frequencyHz === null ? settledRate(bus, sourceId) : null;
  cleanup.push(() => settled?.cancel());
  let info;
  try {
    info = await hub.start(sourceId);
  } catch (err) {
    // Not a byte: as `record serial` would ask it whether it runs the platform's firmware, say what that would mean here.
    if (protocol !== 'auto' || !(err instanceof CoreError && (err.details as { silent?: boolean } | undefined)?.silent)) throw err;
    throw new CoreError(err.code, `${err.message} A board with the platform's official firmware (AT) says nothing until asked and does not stream: record a sample from it ("capture-desk record serial --port ${path}"), then classify it ("capture-desk samples classify ID --model NAME").`);
  } finally {
    cleanup.push(() => hub.stopAll());
  }
  // A Nordic board says its rate (session info); a lines board's is measured, and the rate known
  // when its columns are detected comes from a few lines: see settled-rate.ts.
  const nordic = (reader as ReturnType<typeof createSerialReader> | null)?.protocol() === 'nordic';
  if (nordic) settled?.cancel();
  if (nordic && frequencyHz !== null) process.stderr.write(`--frequency ${frequencyHz} is not used: a Nordic board says its own rate.\n`);
  const measured = settled ? await settled.result : null;
  const rateHz = nordic ? info.rateHz : frequencyHz ?? measured?.hz ?? info.rateHz;
  const how = nordic ? ' (the board\'s own: Nordic data forwarder)' : frequencyHz ? ' (given)' : measured?.steady ? ' (measured)' : ' (measured, still moving: give --frequency HZ if you know it)';
  if (info.baud) process.stderr.write(`${baudSentence(info.baud)}\n`);
  process.stderr.write(`${path}: ${info.axes.length} axes (${info.axes.map((a) => a.name).join(', ')}) at ${rateHz.toFixed(2)} Hz${how}.\n`);
  return {
    name: path,
    axisNames: info.axes.map((a) => a.name),
    rateHz,
    audio: false,
    baud: info.baud,
    // `at` puts the model's rows on the stream's axis: they begin after the rate settled, not at its first reading.
    subscribe: (onRows, onEnd) => hub.tap(sourceId, (values, rows, _info, _timing, at) => onRows(values, rows, at), onEnd),
  };
}

async function openMicrophone(name: string, rateHz: number, dataDir: string, log: Logger, cleanup: Array<() => Promise<void> | void>): Promise<LiveRows> {
  const { AudioSupervisor } = await import('../core/audio/audio-supervisor.js');
  const { loadAudioChoice, resolveDevice } = await import('../core/audio/device-choice.js');
  const quiet: Logger = { info() {}, warn: (m, f) => log.warn(m, f), error: (m, f) => log.error(m, f) };
  const sup = new AudioSupervisor({ log: quiet, restartDelaysMs: false, maxPreRollMs: 0 });
  cleanup.push(() => sup.close());
  let deviceId: string | undefined = name || undefined;
  if (deviceId === undefined) {
    const chosen = resolveDevice(await sup.listDevices(), await loadAudioChoice(dataDir, log));
    if (chosen?.note) process.stderr.write(chosen.note + '\n');
    deviceId = chosen?.device.id;
  }
  const status = await sup.start({ deviceId, sampleRate: rateHz });
  await sup.whenLive(15_000);
  const device = status.device?.name ?? deviceId ?? 'the microphone';
  process.stderr.write(`Opened "${device}", captured at ${rateHz} Hz (the model's rate).\n`);
  return {
    name: `microphone "${device}"`,
    axisNames: ['audio'],
    rateHz,
    audio: true,
    subscribe: (onRows, onEnd) => {
      const offs = [sup.pcm.on((b) => onRows(b.pcm, b.pcm.length)), sup.errors.on((err) => onEnd(err))];
      return () => offs.forEach((off) => off());
    },
  };
}

const r3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);

function verdictJson(w: ModelVerdict): string {
  return JSON.stringify({ t_ms: r3(w.endMs), label: w.label, confidence: w.confidence, scores: w.scores, anomaly: w.anomaly, classify_ms: w.classifyMs }) + '\n';
}

function verdictText(w: ModelVerdict): string {
  const others = Object.entries(w.scores).filter(([l]) => l !== w.label).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([l, s]) => `${l} ${s.toFixed(2)}`).join(', ');
  const conf = w.confidence === null ? '' : w.confidence.toFixed(2);
  return `${(w.endMs / 1000).toFixed(3).padStart(9)} s  ${(w.label ?? '-').padEnd(14)} ${conf}${w.uncertain ? ' uncertain' : ''}${w.anomaly === null ? '' : `  anomaly ${w.anomaly.toFixed(2)}`}${others ? `  (${others})` : ''}\n`;
}

function summaryText(s: { windows: number; by_label: Record<string, number>; skipped: number; classify_ms_p50: number | null; classify_ms_p95: number | null }, caught: string | null): string {
  const labels = Object.entries(s.by_label).sort((a, b) => b[1] - a[1]).map(([l, n]) => `${l} ${n}`).join(', ');
  return `${s.windows} windows (${labels || 'none'}); ${s.skipped} skipped while the model was busy; ${r3(s.classify_ms_p50) ?? '-'} ms per window (p95 ${r3(s.classify_ms_p95) ?? '-'})${caught ? `; ${caught}` : ''}\n`;
}
