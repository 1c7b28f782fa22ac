import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { stderrLogger } from '../core/log.js';
import { decodeSampleBytes } from '../core/review/decoded.js';
import { deriveSamples } from '../core/review/derive.js';
import { DEFAULT_WINDOW_MS, DETECT_DEFAULTS, detectEvents, noEventsError } from '../core/review/segment/detect.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { describe } from './sample-json.js';

export const SPLIT_USAGE = `Usage: capture-desk samples split ID --auto [options]

  Finds the events in a sample (words in audio, movements in sensor data) and writes one new
  sample per event: a window of --window-ms centred on the event, with the original's label,
  category and metadata. The original is kept. Prints one JSON line per window (start_ms,
  end_ms and, unless --dry-run, the new sample's id and file) and a summary on stderr.

  --auto              detect the events (the only way to split from here; fixed windows and
                      windows around marked events are in the sample view)
  --window-ms N       length of each window (default: the project window set in the app's
                      settings, else ${DEFAULT_WINDOW_MS})
  --threshold X       how far over the measured noise floor an event must rise, as an amplitude
                      ratio (default ${DETECT_DEFAULTS.threshold}, about ${(20 * Math.log10(DETECT_DEFAULTS.threshold)).toFixed(0)} dB); lower finds quieter events
  --min-gap-ms N      events closer than this are one event (default ${DETECT_DEFAULTS.minGapMs})
  --keep-edges        keep events too close to an end for a centred window, shifting the
                      window inside (never padded); by default they are left out
  --dry-run           print the windows, write nothing
  --hmac-key K        sign the new samples of a signed sensor sample with this key
  --json              JSON lines (the default output)
  --data-dir DIR      the data directory (default: the app's)
`;

function positive(flag: string, v: string | undefined, min: number): number | undefined {
  if (v === undefined) return undefined;
  const n = v.trim() === '' ? NaN : Number(v);
  // A number out of range is said as the range: "must be a number; got "-1"" was wrong about -1.
  if (!Number.isFinite(n) || n < min) throw new UsageError(`${flag} must be a number of at least ${min}; got "${v}".`);
  return n;
}

export async function samplesSplitCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SPLIT_USAGE, {
    ...booleans('auto', 'keep-edges', 'dry-run', 'json'),
    ...strings('window-ms', 'threshold', 'min-gap-ms', 'hmac-key', 'data-dir'),
  }, { positionals: true });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const id = positionals[0];
  if (!id || positionals.length > 1) throw new UsageError('samples split takes one sample ID (see "capture-desk samples list").');
  if (!values.auto) throw new UsageError('samples split needs --auto: from the command line it splits at detected events (see "capture-desk samples split --help").');
  const windowMs = positive('--window-ms', values['window-ms'], 1);
  const threshold = values.threshold === undefined ? undefined : values.threshold.trim() === '' ? NaN : Number(values.threshold);
  if (threshold !== undefined && !(threshold > 1 && threshold < Infinity)) throw new UsageError(`--threshold is a ratio over the noise floor and must be above 1; got "${values.threshold}".`);
  const minGapMs = positive('--min-gap-ms', values['min-gap-ms'], 0);

  const dataDir = await ensureDataDir(values['data-dir'] ?? defaultDataDir());
  const log = stderrLogger({ command: 'samples' });
  const projectWindowMs = (await SettingsStore.open(dataDir, log)).get().projectWindowMs;
  const store = await SampleStore.open(dataDir, log);
  try {
    const sample = store.get(id);
    const d = decodeSampleBytes(sample, await store.readBytes(sample));
    const t0 = performance.now();
    const det = detectEvents(d, {
      windowMs: windowMs ?? projectWindowMs ?? DEFAULT_WINDOW_MS,
      ...(threshold !== undefined ? { threshold } : {}),
      ...(minGapMs !== undefined ? { minGapMs } : {}),
      keepEdges: Boolean(values['keep-edges']),
    });
    const took = performance.now() - t0;
    if (!det.windows.length) throw noEventsError(det);
    const ms = (row: number) => Math.round(row * d.intervalMs * 1000) / 1000;
    const made = values['dry-run'] ? [] : await deriveSamples(store, sample, d, det.windows, { how: 'split', hmacKey: values['hmac-key'] });
    det.windows.forEach((w, i) => {
      const s = made[i];
      const line = {
        start_ms: ms(w.from), end_ms: ms(w.to), event_start_ms: ms(w.event.from), event_end_ms: ms(w.event.to), shifted: w.shifted,
        ...(s ? { id: s.id, file: describe(s, dataDir).file, name: s.name, label: s.label } : {}),
      };
      process.stdout.write(JSON.stringify(line) + '\n');
    });
    const floor = d.kind === 'audio' ? `${(10 * Math.log10(det.floorPower)).toFixed(1)} dBFS` : `${Math.sqrt(det.floorPower).toFixed(2)}× the axes' noise`;
    const edges = det.droppedAtEdges ? `; ${det.droppedAtEdges} too close to an end left out (--keep-edges keeps them)` : '';
    process.stderr.write(
      `${count(det.windows.length, 'event')} in "${sample.name}" (noise floor ${floor}, found in ${took.toFixed(0)} ms)${edges}; ` +
        (values['dry-run'] ? 'dry run, nothing written.\n' : `wrote ${count(made.length, 'sample')} of ${ms(det.windowRows)} ms; the original is kept.\n`),
    );
    return 0;
  } finally {
    await store.close();
  }
}

const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
