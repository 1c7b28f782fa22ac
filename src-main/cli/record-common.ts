import type { Sample } from '../core/contract/contract.js';
import { needsRate } from '../core/capture/set-rate.js';
import { CoreError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { SampleStore } from '../core/samples/sample-store.js';
import { ProjectKeys, resolveApiKey } from '../core/secrets/project-keys.js';
import { keytarKeychain } from '../core/secrets/keychain.js';
import { OthersInFlight } from '../core/upload/others-in-flight.js';
import { UploadQueue } from '../core/upload/upload-queue.js';
import { UsageError } from './args.js';
import { booleans, strings } from './flags.js';
import { TAKE_KEY_REFUSED_HINT } from './key-advice.js';
import { describe } from './sample-json.js';

/**
 * The one JSON line `record serial` and `record audio` print on stdout for the saved sample.
 * `needs_attention` (with `note` saying why and what to do) is true whenever the command exits
 * non-zero for the take itself: incomplete, or waiting for its rate.
 */
export function sampleLine(s: Sample, dataDir: string): string {
  const d = describe(s, dataDir);
  // A serial board's take says the baud rate it was read at, and whether it was found (Auto).
  const baud = typeof s.extra.baud === 'number' ? { baud: s.extra.baud, baud_detected: s.extra.baud_detected === true } : {};
  return JSON.stringify({ ...d, rows: s.extra.rows ?? null, interval_ms: s.extra.interval_ms ?? null, rejected_lines: s.extra.rejected_lines ?? 0, ...baud, needs_attention: needsAttention(s), note: s.note }) + '\n';
}

/** A take the person has to look at before it is a sample like any other. */
export function needsAttention(s: Sample): boolean {
  return s.incomplete || needsRate(s);
}

/**
 * When the sample file could not be written (disk full, folder not writable) the rows stay in
 * the recordings folder: the JSON line says where, so a script can tell this from a lost take.
 */
export function keptLine(err: unknown): string | null {
  const details = err instanceof CoreError ? (err.details as { keptIn?: unknown; rows?: unknown } | undefined) : undefined;
  if (typeof details?.keptIn !== 'string') return null;
  return JSON.stringify({ state: 'kept-in-recordings', needs_attention: true, recording: details.keptIn, rows: details.rows ?? null, note: (err as Error).message }) + '\n';
}

/** Flags every `record …` command takes: what the sample is, where it goes, and --upload. */
export const RECORD_OPTIONS = {
  ...strings('length-ms', 'label', 'category', 'metadata', 'data-dir', 'ingestion-url', 'api-key'),
  ...booleans('upload'),
};

export interface UploadFlags {
  upload?: boolean | undefined;
  'ingestion-url'?: string | undefined;
  'api-key'?: string | undefined;
}

/** Checks the --upload flags before capturing anything, so a capture is never made in vain. */
export async function prepareUpload(f: UploadFlags, projectId: number | null): Promise<{ ingestionUrl: string; apiKey: string } | null> {
  if (!f.upload) return null;
  const ingestionUrl = f['ingestion-url'];
  if (!ingestionUrl || !/^https?:\/\//i.test(ingestionUrl)) throw new UsageError('--upload needs --ingestion-url http(s)://… (and an API key via --api-key, CAPTURE_DESK_API_KEY or the keychain).');
  const { key } = await resolveApiKey({ flag: f['api-key'], projectId, keys: new ProjectKeys(keytarKeychain()) }).catch((err: unknown) => {
    throw err instanceof CoreError ? new UsageError(err.message) : err;
  });
  return { ingestionUrl, apiKey: key };
}

/** Queues one sample and waits for the platform's verdict. */
export async function uploadOne(store: SampleStore, log: Logger, target: { ingestionUrl: string; apiKey: string }, id: string): Promise<Sample> {
  const queue = new UploadQueue({ store, log, maxAttempts: 6, backoff: { baseMs: 500, maxMs: 10_000 }, target: async () => target, keyRefusedHint: TAKE_KEY_REFUSED_HINT,
    othersInFlight: new OthersInFlight(Date.now),
  });
  queue.enqueue([id]);
  queue.start();
  await queue.whenIdle();
  await queue.stop();
  const s = store.get(id);
  if (queue.status().paused) process.stderr.write(`Upload stopped: ${queue.status().pausedReason}\n`);
  else if (s.state !== 'uploaded') process.stderr.write(`Upload ${s.state}: ${s.error ?? ''}\n`);
  return s;
}
