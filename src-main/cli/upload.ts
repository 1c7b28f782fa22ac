import { parseArgs } from 'node:util';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { CoreError } from '../core/errors.js';
import { stderrLogger } from '../core/log.js';
import { SampleStore } from '../core/samples/sample-store.js';
import { keytarKeychain } from '../core/secrets/keychain.js';
import { ProjectKeys, resolveApiKey } from '../core/secrets/project-keys.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import { collectFiles, importFiles } from '../core/upload/import-files.js';
import { MAX_FILES_PER_REQUEST } from '../core/upload/ingestion-client.js';
import { UploadQueue } from '../core/upload/upload-queue.js';
import { UsageError } from './args.js';
import { parseBoundingBoxes, parseCategory, parseIntFlag, parseMetadata } from './options.js';
import { Progress } from './progress.js';
import { summarize } from './upload-summary.js';

export const UPLOAD_USAGE = `Usage: capture-desk upload [options] PATH...

Uploads files or folders (recursively) to the platform's ingestion service. Accepted: .json .cbor
.csv .parquet (sensor), .wav (audio), .jpg .jpeg .png (image), .mp4 .avi (video). Files are indexed
in the data directory first, so an interrupted upload resumes where it stopped when run again.
Progress goes to stderr; the last line is "N uploaded, M already present, K rejected, F failed".
Exit code 0 only when every file is on the platform. Files named here are always sent: the app's
data-quality hold (Settings → Data quality) applies to what the app queues by itself, never to a
file you ask this command to upload.

Options:
  --ingestion-url URL     ingestion service (default: from settings, https://ingestion.edgeimpulse.com)
  --api-key KEY           project API key (default: $CAPTURE_DESK_API_KEY, then the OS keychain)
  --hmac-key KEY          sign unsigned JSON/CBOR sensor files with this key (device-signed files are kept as they are)
  --category C            training (default), validation, testing, post-processing or split
  --label L               label for every file (default: from the file name, e.g. idle.01.cbor -> idle)
  --unlabeled             upload without a label
  --metadata JSON         key/values attached to every sample, e.g. '{"subject":"ana"}'
  --bounding-boxes JSON   bounding boxes for every image (object detection projects)
  --allow-duplicates      let the platform store files it already has (default: refuse duplicates)
  --add-date-id           append a unique id to each stored file name
  --concurrency N         requests in flight (default 4)
  --files-per-request N   files sent together in one request (default 500; the platform takes up to 1000)
  --data-dir DIR          data directory (default: ${defaultDataDir()})
  -h, --help              show this help
`;

export async function uploadCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'ingestion-url': { type: 'string' },
      'api-key': { type: 'string' },
      'hmac-key': { type: 'string' },
      category: { type: 'string' },
      label: { type: 'string' },
      unlabeled: { type: 'boolean' },
      metadata: { type: 'string' },
      'bounding-boxes': { type: 'string' },
      'allow-duplicates': { type: 'boolean' },
      'add-date-id': { type: 'boolean' },
      concurrency: { type: 'string' },
      'files-per-request': { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(UPLOAD_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('give at least one file or folder to upload.');
  if (values.label !== undefined && values.unlabeled) throw new UsageError('--label and --unlabeled exclude each other; use one.');
  if (values.label !== undefined && values.label.trim() === '') throw new UsageError('--label must not be empty; use --unlabeled for no label.');
  const category = parseCategory(values.category);
  const metadata = parseMetadata(values.metadata);
  const boundingBoxes = parseBoundingBoxes(values['bounding-boxes']);
  const concurrency = parseIntFlag('--concurrency', values.concurrency, 4, 1, 64);
  const filesPerRequest = parseIntFlag('--files-per-request', values['files-per-request'], 500, 1, MAX_FILES_PER_REQUEST);

  const log = stderrLogger({ command: 'upload' });
  const dataDir = await ensureDataDir(values['data-dir'] ?? defaultDataDir());
  const settings = (await SettingsStore.open(dataDir, log)).get();
  const ingestionUrl = values['ingestion-url'] ?? settings.ingestionUrl;
  if (!/^https?:\/\//i.test(ingestionUrl)) throw new UsageError(`--ingestion-url must be an http:// or https:// URL; got "${ingestionUrl}".`);
  const apiKey = (await resolveApiKey({ flag: values['api-key'], projectId: settings.projectId, keys: new ProjectKeys(keytarKeychain()) }).catch((err: unknown) => {
    if (err instanceof CoreError) throw new UsageError(err.message);
    throw err;
  })).key;

  const { files, skipped } = await collectFiles(positionals);
  for (const s of skipped) process.stderr.write(`skipped ${s.path}: ${s.reason}\n`);
  if (files.length === 0) {
    process.stderr.write('Nothing to upload.\n');
    process.stdout.write('0 uploaded, 0 already present, 0 rejected, 0 failed\n');
    return skipped.length > 0 ? 1 : 0;
  }

  const store = await SampleStore.open(dataDir, log);
  // This command only indexes references to files that stay where they are, and every state it
  // records can be re-derived by running it again (the platform refuses duplicates). So its
  // connection may skip the fsync per commit: WAL still survives kill -9; only a power cut could
  // drop the last commits, which a re-run restores. Captures elsewhere keep synchronous=FULL.
  store.db.pragma('synchronous = NORMAL');
  try {
    const progress = new Progress(files.length);
    const queue = new UploadQueue({
      store, log, concurrency, maxFilesPerRequest: filesPerRequest, maxAttempts: 6, backoff: { baseMs: 500, maxMs: 15_000 },
      target: async () => ({ ingestionUrl, apiKey }),
      onChange: (status) => progress.update(status.counts.uploaded, `uploaded${status.counts.failed + status.counts.rejected ? `, ${status.counts.failed + status.counts.rejected} not` : ''}`),
    });
    // Sending starts with the first indexed chunk; the rest is hashed while requests are in flight.
    queue.start();
    const outcomes = await importFiles(
      store,
      files,
      {
        category, label: values.unlabeled ? null : values.label, metadata, boundingBoxes,
        addDateId: Boolean(values['add-date-id']), allowDuplicates: Boolean(values['allow-duplicates']),
        hmacKey: values['hmac-key'], queue: true,
      },
      (chunk) => {
        // A file known from an earlier run that did not make it gets another chance (the key,
        // the project settings or the network may have been fixed since).
        const retry = chunk.flatMap((o) => (o.status === 'known' && ['local', 'failed', 'rejected'].includes(o.sample.state) ? [o.sample.id] : []));
        if (retry.length) queue.queueStore.enqueue(retry);
        queue.wake();
      },
    );
    await queue.whenIdle();
    await queue.stop();
    progress.finish();
    const status = queue.status();
    if (status.paused) process.stderr.write(`Uploads stopped: ${status.pausedReason}\n`);
    const now = store.verdicts();
    const summary = summarize(
      outcomes.map((o) => (o.status === 'refused' ? o : { ...o, sample: { ...o.sample, ...now.get(o.sample.id) }, uploadedBefore: o.sample.state === 'uploaded' })),
      status.pausedReason,
    );
    for (const line of summary.details) process.stderr.write(line + '\n');
    process.stdout.write(summary.line + '\n');
    return summary.allOnPlatform ? 0 : 1;
  } finally {
    store.close();
  }
}
