import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { CoreError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { API_KEY_ENV, ProjectKeys, resolveApiKey } from '../core/secrets/project-keys.js';
import { MAX_FILES_PER_REQUEST } from '../core/upload/ingestion-client.js';
import { UsageError } from './args.js';
import { commandLogger } from './command-log.js';
import { booleans, parseCommand, strings } from './flags.js';
import { parseBoundingBoxes, parseCategory, parseIntFlag, parseLabel, parseMetadata } from './options.js';
import { runUpload } from './upload-run.js';

export const UPLOAD_USAGE = `Usage: capture-desk upload [options] PATH...

Uploads files or folders (recursively) to the platform's ingestion service. Accepted: .json .cbor
.csv .parquet (sensor), .wav (audio), .jpg .jpeg .png (image), .mp4 .avi (video). Files are indexed
in the data directory first, so an interrupted upload resumes where it stopped when run again.
Labels files beside the files are used as the platform's own uploader uses them: info.labels sets
each listed file's category, label (or structured labels), metadata and boxes, over the flags;
bounding_boxes.labels gives the images of its folder their boxes. Hidden files are left out.
Progress goes to stderr; the last line is "N uploaded, M already present, K rejected, F failed",
where "uploaded" counts only the files this run stored. Exit code 0 only when every file is on the
platform as asked.

Files another Capture Desk process is sending (a second run on this data directory, the app) are
waited for while it can still answer for them: 30 s plus 1 s per 100 kB in flight, counted from the
last change seen. A process killed while sending never answers; the run then ends with exit 1, and
running the same command again sends those files.

A file an earlier run left unsent (a refused key, an interruption) goes with this run's label,
category, metadata and flags, signed with this run's --hmac-key (or unsigned without one); the
summary says which changed. A file already on the platform is not sent again for other words: the
summary says what it is stored as there (change it on the platform) and the exit code is 1.

Files named here are always sent: the app's data-quality hold (Settings → Data quality) applies to
what the app queues by itself, never to a file you ask this command to upload.

Options:
  --ingestion-url URL     ingestion service (default: from settings, https://ingestion.edgeimpulse.com)
  --api-key KEY           project API key (default: $CAPTURE_DESK_API_KEY, then the OS keychain)
  --hmac-key KEY          sign unsigned JSON/CBOR sensor files with this key (device-signed files are kept as they are)
  --category C            training (default), validation, testing, post-processing or split
  --label L               label for every file (default: the platform derives it from the file name,
                          e.g. idle.01.cbor -> idle, so files with different labels share a request)
  --unlabeled             upload without a label
  --metadata JSON         key/values attached to every sample, e.g. '{"subject":"ana"}'
  --bounding-boxes JSON   bounding boxes for every image (object detection projects; other files go without)
  --allow-duplicates      let the platform store files it already has (default: refuse duplicates)
  --add-date-id           append a unique id to each stored file name
  --concurrency N         requests in flight (default 4)
  --files-per-request N   files sent together in one request (default 500; the platform takes up to 1000)
  --data-dir DIR          data directory (default: ${defaultDataDir()})
  --verbose               also write the log (one JSON line per event) to stderr
  -h, --help              show this help
`;

export async function uploadCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, UPLOAD_USAGE, {
    ...strings('ingestion-url', 'api-key', 'hmac-key', 'category', 'label', 'metadata', 'bounding-boxes', 'concurrency', 'files-per-request', 'data-dir'),
    ...booleans('unlabeled', 'allow-duplicates', 'add-date-id', 'verbose'),
  }, { positionals: true });
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError('give at least one file or folder to upload.');
  if (values.label !== undefined && values.unlabeled) throw new UsageError('--label and --unlabeled exclude each other; use one.');
  if (values.label !== undefined && values.label.trim() === '') throw new UsageError('--label must not be empty; use --unlabeled for no label.');
  const label = parseLabel(values.label, 'refused');
  const category = parseCategory(values.category);
  const metadata = parseMetadata(values.metadata);
  const boundingBoxes = parseBoundingBoxes(values['bounding-boxes']);
  const concurrency = parseIntFlag('--concurrency', values.concurrency, 4, 1, 64);
  const filesPerRequest = parseIntFlag('--files-per-request', values['files-per-request'], 500, 1, MAX_FILES_PER_REQUEST);

  const log = commandLogger('upload', Boolean(values.verbose));
  const dataDir = await ensureDataDir(values['data-dir'] ?? defaultDataDir());
  const { ingestionUrl, apiKey } = await resolveTarget(values['ingestion-url'], values['api-key'], dataDir, log);
  return runUpload({
    paths: positionals, dataDir, log, ingestionUrl, apiKey, concurrency, filesPerRequest,
    import: {
      category, label: values.unlabeled ? null : label, metadata, boundingBoxes,
      addDateId: Boolean(values['add-date-id']), allowDuplicates: Boolean(values['allow-duplicates']),
      hmacKey: values['hmac-key'], queue: true, retake: true,
    },
  });
}

/**
 * The URL and key from the flags, the environment, the settings and the keychain, in that order.
 * Settings (and the contract's schemas they validate with) and the keychain load only when a flag
 * or the environment does not already answer: scripts that pass both start faster.
 */
async function resolveTarget(urlFlag: string | undefined, keyFlag: string | undefined, dataDir: string, log: Logger): Promise<{ ingestionUrl: string; apiKey: string }> {
  const keyGiven = keyFlag !== undefined || (process.env[API_KEY_ENV] ?? '').trim() !== '';
  const settings = urlFlag !== undefined && keyGiven
    ? null
    : (await (await import('../core/settings/settings-store.js')).SettingsStore.open(dataDir, log)).get();
  const ingestionUrl = urlFlag ?? settings!.ingestionUrl;
  if (!/^https?:\/\//i.test(ingestionUrl)) throw new UsageError(`--ingestion-url must be an http:// or https:// URL; got "${ingestionUrl}".`);
  const keys = keyGiven ? undefined : new ProjectKeys((await import('../core/secrets/keychain.js')).keytarKeychain());
  const apiKey = (await resolveApiKey({ flag: keyFlag, projectId: settings?.projectId ?? null, keys }).catch((err: unknown) => {
    if (err instanceof CoreError) throw new UsageError(err.message);
    throw err;
  })).key;
  return { ingestionUrl, apiKey };
}
