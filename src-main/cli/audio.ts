import type { Category } from '../core/contract/contract.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { AudioRecording } from '../core/audio/audio-recording.js';
import { AudioSupervisor, DEFAULT_DEVICE_RATE, DEFAULT_SAMPLE_RATE, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE } from '../core/audio/audio-supervisor.js';
import { loadAudioChoice, resolveDevice, saveAudioChoice } from '../core/audio/device-choice.js';
import { DEFAULT_DEVICE_ID, DEFAULT_ENTRY, type AudioDevice } from '../core/audio/worker-protocol.js';
import { stderrLogger, type Logger } from '../core/log.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { formatLevelSummary, LevelSummary } from './audio-levels.js';
import { parseCategory, parseIntFlag, parseLabel, parseMetadata } from './options.js';
import { keptLine, prepareUpload, RECORD_OPTIONS, sampleLine, uploadOne } from './record-common.js';

export const DEVICES_AUDIO_USAGE = `Usage: capture-desk devices audio [--json] [--watch] [--select ID] [--data-dir DIR]

Lists the audio input devices (microphones). The first entry, "default", is the system's default
input. The device marked * is the one recordings use (picked with --select, else the default).

Options:
  --json          one JSON object per line: {"id","name","default","selected"}
  --watch         keep running and print devices as they appear and disappear (Ctrl+C ends)
  --select ID     remember this device (an id from the list, or "default") for recordings
  --data-dir DIR  data directory (default: ${defaultDataDir()})
  -h, --help      show this help
`;

export const RECORD_AUDIO_USAGE = `Usage: capture-desk record audio [options]

Records one audio sample (mono, 16-bit PCM WAV) from a microphone and saves it in the data
directory. The device, its level and any warnings go to stderr; stdout gets one JSON line
describing the saved sample. Exit 0 only when the sample is saved complete (and, with --upload,
confirmed by the platform). If the microphone goes away mid-way, what was recorded is kept as an
incomplete sample (printed, exit 1).

Options:
  --device ID        input device id from "capture-desk devices audio" (default: the one picked
                     with "devices audio --select", else the system default)
  --rate HZ          sample rate of the recording, ${MIN_SAMPLE_RATE}-${MAX_SAMPLE_RATE} (default ${DEFAULT_SAMPLE_RATE})
  --device-rate HZ   rate to open the device at; the audio is resampled from it (default ${DEFAULT_DEVICE_RATE})
  --length-ms N      record N ms (default 10000; Ctrl+C stops early and keeps what was recorded)
  --pre-roll-ms N    also keep N ms from before the recording started (default 0)
  --label L          label (default: unlabeled)
  --category C       training (default), testing or post-processing
  --metadata JSON    key/values for the sample, e.g. '{"subject":"ana"}'
  --data-dir DIR     data directory (default: ${defaultDataDir()})
  --upload           upload it too, with:
  --ingestion-url URL  the ingestion service
  --api-key K          the project API key (or CAPTURE_DESK_API_KEY, or the keychain)
  -h, --help         show this help
`;

/** `devices audio …` (also accepts the arguments after "audio"). */
export async function devicesCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, DEVICES_AUDIO_USAGE, { ...booleans('json', 'watch'), ...strings('select', 'data-dir') }, { positionals: true });
  if (!parsed) return 0;
  const { values: v, positionals } = parsed;
  if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'audio')) {
    throw new UsageError(`unknown device kind "${positionals.join(' ')}"; try "devices audio".`);
  }
  const log = stderrLogger({ command: 'devices audio' });
  const dataDir = v['data-dir'] ?? defaultDataDir(); // created only to remember a choice
  const sup = new AudioSupervisor({ log: quiet(log), restartDelaysMs: false });
  try {
    const devices = await sup.listDevices();
    if (v.select !== undefined) {
      // "default" is always a choice (the help says so): with no microphone connected yet, it is
      // the one recordings will find once one is.
      const d = devices.find((x) => x.id === v.select) ?? (v.select === DEFAULT_DEVICE_ID ? DEFAULT_ENTRY : undefined);
      if (!d) throw new UsageError(`no audio input device with id "${v.select}"; run "capture-desk devices audio" for the list.`);
      await ensureDataDir(dataDir);
      // The app keeps its rate and pre-roll in the same file: change only the device.
      await saveAudioChoice(dataDir, { ...(await loadAudioChoice(dataDir, log)), deviceId: d.id, name: d.name });
      process.stderr.write(`Recordings will use "${d.name}" (${d.id}).\n`);
    }
    const chosen = resolveDevice(devices, await loadAudioChoice(dataDir, log));
    if (chosen?.note) process.stderr.write(chosen.note + '\n');
    const print = (list: AudioDevice[], mark = '') => {
      for (const d of list) {
        const selected = d.id === chosen?.device.id;
        if (v.json) process.stdout.write(JSON.stringify({ id: d.id, name: d.name, default: d.default, selected, ...(mark ? { change: mark } : {}) }) + '\n');
        else process.stdout.write(`${mark ? `${mark} ` : ''}${selected ? '*' : ' '} ${d.id.padEnd(20)}  ${d.name}\n`);
      }
    };
    if (devices.length === 0) process.stderr.write('No audio input devices found. Plug in a microphone (and check that the sound server, e.g. PulseAudio or PipeWire, is running).\n');
    print(devices);
    if (!v.watch) return 0;
    process.stderr.write('Watching for devices (Ctrl+C ends)…\n');
    const ac = new AbortController();
    sup.watchDevices((c) => {
      print(c.added, v.json ? 'added' : '+');
      print(c.removed, v.json ? 'removed' : '-');
    }, ac.signal);
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    ac.abort();
    return 0;
  } finally {
    await sup.close();
  }
}

/** `record audio …` (also accepts the arguments after "audio"). */
export async function recordAudioCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, RECORD_AUDIO_USAGE, { ...strings('device', 'rate', 'device-rate', 'pre-roll-ms'), ...RECORD_OPTIONS }, { positionals: true });
  if (!parsed) return 0;
  const { values: v, positionals } = parsed;
  if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'audio')) {
    throw new UsageError(`unexpected argument "${positionals.join(' ')}".`);
  }
  const sampleRate = parseIntFlag('--rate', v.rate, DEFAULT_SAMPLE_RATE, MIN_SAMPLE_RATE, MAX_SAMPLE_RATE);
  const deviceRate = parseIntFlag('--device-rate', v['device-rate'], DEFAULT_DEVICE_RATE, 8000, 192_000);
  const lengthMs = parseIntFlag('--length-ms', v['length-ms'], 10_000, 1, 24 * 3600_000);
  const preRollMs = parseIntFlag('--pre-roll-ms', v['pre-roll-ms'], 0, 0, 10_000);
  const category = parseCategory(v.category, ['training', 'testing', 'post-processing']) as Category;
  const metadata = parseMetadata(v.metadata);
  const label = parseLabel(v.label) ?? null;
  if (v.device !== undefined && v.device.trim() === '') throw new UsageError('--device must not be empty; run "capture-desk devices audio" for the ids.');

  const log = stderrLogger({ command: 'record audio' });
  const dataDir = await ensureDataDir(v['data-dir'] ?? defaultDataDir());
  const settings = (await SettingsStore.open(dataDir, log)).get();
  const upload = await prepareUpload(v, settings.projectId);
  const sup = new AudioSupervisor({ log: quiet(log), restartDelaysMs: false, maxPreRollMs: preRollMs });
  const store = await SampleStore.open(dataDir, log);
  try {
    let deviceId = v.device;
    if (deviceId === undefined) {
      const chosen = resolveDevice(await sup.listDevices(), await loadAudioChoice(dataDir, log));
      if (chosen?.note) process.stderr.write(chosen.note + '\n');
      deviceId = chosen?.device.id; // none: start() explains that there is no input device
    }
    const status = await sup.start({ deviceId, sampleRate, deviceRate });
    process.stderr.write(`Opened "${status.device?.name}" (device at ${status.deviceRate} Hz, recording at ${sampleRate} Hz); waiting for audio…\n`);
    await sup.whenLive(15_000);
    // Skip the first moments (the resampler starting from silence), and with a pre-roll let the
    // ring fill first so the sample really starts that early.
    await new Promise((r) => setTimeout(r, Math.max(100, preRollMs)));
    const levels = new LevelSummary();
    sup.levels.on((r) => levels.add(r));
    const rec = await AudioRecording.start(sup, store, { label, category, metadata, lengthMs, preRollMs }); // --upload queues it below
    process.stderr.write(`Recording ${lengthMs} ms${preRollMs ? ` (+${preRollMs} ms pre-roll)` : ''}…\n`);
    const onSigint = () => void rec.stop();
    process.once('SIGINT', onSigint);
    const { sample: saved, error } = await rec.done.finally(() => process.off('SIGINT', onSigint)).catch((err: unknown) => {
      const kept = keptLine(err);
      if (kept) process.stdout.write(kept);
      throw err;
    });
    await sup.stop();
    process.stderr.write(formatLevelSummary(levels) + '\n');
    if (error) process.stderr.write(`${error.message}\nThe ${saved.extra.rows} frames recorded so far were kept as an incomplete sample.\n`);
    let sample = saved;
    if (upload && !sample.incomplete) sample = await uploadOne(store, log, upload, sample.id);
    process.stdout.write(sampleLine(sample, dataDir));
    if (sample.incomplete) return 1;
    return upload && sample.state !== 'uploaded' ? 1 : 0;
  } finally {
    await sup.close();
    await store.close();
  }
}

/** The CLI tells the user in sentences; the supervisor's routine info lines would only be noise. */
function quiet(log: Logger): Logger {
  return { info() {}, warn: (m, f) => log.warn(m, f), error: (m, f) => log.error(m, f) };
}
