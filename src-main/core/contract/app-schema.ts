/**
 * Shapes of the app itself: what it says of itself, its settings, the keys it holds (never their
 * values) and the "Test connection" answer.
 */
import { z } from 'zod';
import { ClassifyAfterUpload, ClassifyTarget } from './classify-schema.js';
import { MAX_LABEL_CHARS } from './label-rule.js';
import { MAX_LABEL_TARGET } from './limits.js';
import { wsUrl } from './remote-schema.js';

const httpUrl = z
  .string()
  .trim()
  .refine((s) => /^https?:\/\/[^\s/]+/i.test(s), { message: 'must be an http:// or https:// URL' });

export const Settings = z.object({
  ingestionUrl: httpUrl,
  managementUrl: httpUrl,
  projectId: z.number().int().positive().nullable(),
  deviceName: z.string().trim().min(1, 'device name must not be empty').max(128),
  /** How many samples the user aims for per label (class balance shows progress toward it). */
  labelTargets: z.record(z.string().min(1).max(MAX_LABEL_CHARS), z.number().int().positive().max(MAX_LABEL_TARGET)).refine((t) => Object.keys(t).length <= 1000, 'at most 1000 label targets'),
  /** Upload requests in flight at once (each carries up to 1000 files). */
  uploadConcurrency: z.number().int().min(1, 'uploads in parallel must be at least 1').max(16, 'uploads in parallel must be at most 16'),
  /** Which flagged captures stay out of the upload queue until "Upload anyway": errors only, any finding, or none. */
  qualityHold: z.enum(['errors', 'all', 'off']),
  /** Captures shorter than this get a "too short" error (0 = no minimum). */
  qualityMinLengthMs: z.number().int().nonnegative().max(3_600_000),
  /** The project's window size (its impulse's, which the platform's API does not tell us): automatic splits default to it; null = 1000 ms. */
  projectWindowMs: z.number().int().positive().max(3_600_000).nullable(),
  /**
   * The platform's remote-management service (sources "connected to the platform" open a WebSocket
   * to it); null = derived from the ingestion URL (see remote/remote-url.ts).
   */
  remoteMgmtUrl: wsUrl.nullable(),
  // No .default() on these two: zod puts defaults into settings.set's partial input too, which would
  // reset them on every other change. A settings file without them gets DEFAULT_SETTINGS' values.
  /** Capture option "classify each take after upload": off, only takes going to testing, or every take. */
  classifyAfterUpload: ClassifyAfterUpload,
  /** The model variant and impulse id to classify with, remembered per project (key: the project id as text). */
  classifyTargets: z.record(z.string().regex(/^\d+$/, 'keys are project ids'), ClassifyTarget).refine((t) => Object.keys(t).length <= 1000, 'at most 1000 projects'),
});
export type Settings = z.infer<typeof Settings>;

/** Said once, by the start that found the sample index lost and rebuilt it from the sample files. */
export const IndexRebuild = z.object({
  at: z.string(),
  reason: z.string(),
  /** The damaged samples.db (and -wal/-shm), renamed samples.db.corrupt-<time>, in the data folder. */
  keptAs: z.array(z.string()),
  restored: z.number().int().nonnegative(),
  fromContents: z.number().int().nonnegative(),
  wasPending: z.number().int().nonnegative(),
  /** What was recovered and what was lost, for a person: the UI shows it as is. */
  message: z.string(),
});
export type IndexRebuild = z.infer<typeof IndexRebuild>;

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  shell: z.enum(['electron', 'browser', 'cli']),
  platform: z.string(),
  dataDir: z.string(),
  nodeVersion: z.string(),
  /** Set only in the run whose start rebuilt the index. */
  indexRebuild: IndexRebuild.nullable(),
  /**
   * What the shell serving this page must say on every start, or null: the browser shell serving
   * another machine over plain HTTP (`serve --insecure-http`).
   */
  shellWarning: z.string().nullable(),
});
export type AppInfo = z.infer<typeof AppInfo>;

/** One part of "Test connection": ok true/false, or null when it is only said (optional, or not reached). */
export const ConnectionStep = z.object({
  part: z.enum(['api-key', 'project', 'management', 'ingestion', 'hmac-key']),
  ok: z.boolean().nullable(),
  message: z.string(),
  /** The URL this step called, so a wrong one is visible. */
  url: z.string().nullable(),
});
export type ConnectionStep = z.infer<typeof ConnectionStep>;
export const ConnectionCheck = z.object({ ok: z.boolean(), steps: z.array(ConnectionStep), checkedAt: z.string() });
export type ConnectionCheck = z.infer<typeof ConnectionCheck>;

export const KeyKind = z.enum(['api-key', 'hmac-key']);
/** Where a key comes from. Only the keychain stores it; the others hold it in memory for this run and are never written anywhere. */
export const KeySource = z.object({
  /**
   * keychain: the system keychain (stored there, kept across runs); environment: a variable such as
   * CAPTURE_DESK_API_KEY; flag: a command-line flag; file: a key file (--api-key-file); session:
   * typed in (or cleared) over one of those for this run only.
   */
  from: z.enum(['keychain', 'environment', 'flag', 'file', 'session']),
  /** The variable, flag or file it came from; null for the keychain and the session. */
  name: z.string().nullable(),
  /** False: held in memory only, gone when this run ends. */
  stored: z.boolean(),
});
export type KeySource = z.infer<typeof KeySource>;
export const KeyStatus = z.object({
  apiKey: z.enum(['set', 'not set', 'unknown']),
  hmacKey: z.enum(['set', 'not set', 'unknown']),
  /** Why the keychain cannot be used, if it cannot: keys are then refused, never stored in plain text. */
  keychainProblem: z.string().nullable(),
  /** Where each key comes from; a key held in memory can be replaced or cleared for this run even without a keychain. */
  apiKeySource: KeySource,
  hmacKeySource: KeySource,
});
export type KeyStatus = z.infer<typeof KeyStatus>;
