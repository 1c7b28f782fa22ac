/**
 * What `app.diagnostics` returns: facts a user can paste into a bug report. Part of the contract,
 * so (like contract.ts) nothing here may import Node or Electron. Never a key: keys appear only as
 * "set" / "not set", and the whole answer is redacted against every key the core holds.
 */
import { z } from 'zod';

const KeyState = z.enum(['set', 'not set', 'unknown']);
const Count = z.number().int().nonnegative();

export const DiagnosticsReport = z.object({
  generatedAt: z.string(),
  app: z.object({ name: z.string(), version: z.string(), shell: z.enum(['electron', 'browser', 'cli']) }),
  /** process.versions of the core's process; electron and chrome are null outside the desktop app. */
  versions: z.object({ node: z.string(), electron: z.string().nullable(), chrome: z.string().nullable(), v8: z.string(), napi: z.string().nullable() }),
  os: z.object({ platform: z.string(), release: z.string(), arch: z.string(), version: z.string() }),
  paths: z.object({ dataDir: z.string(), logsDir: z.string() }),
  serial: z.object({
    ports: z.array(z.object({ path: z.string(), name: z.string(), addedByPath: z.boolean(), vendorId: z.string().nullable(), productId: z.string().nullable() })),
  }),
  audio: z.object({
    /** False in a shell without microphone capture, or when the device list could not be read (see problem). */
    available: z.boolean(),
    devices: z.array(z.object({ name: z.string(), default: z.boolean() })),
    problem: z.string().nullable(),
    /** The sound system microphones are read through, and why (e.g. ALSA: no JACK server is running). */
    host: z.string().nullable(),
  }),
  keychain: z.object({ available: z.boolean(), apiKey: KeyState, hmacKey: KeyState, problem: z.string().nullable() }),
  queue: z.object({ paused: z.boolean(), pausedReason: z.string().nullable(), online: z.boolean(), inFlight: Count }),
  samples: z.object({
    total: Count,
    byState: z.object({ local: Count, queued: Count, uploading: Count, uploaded: Count, failed: Count, rejected: Count }),
    flagged: Count,
  }),
  settings: z.object({ ingestionUrl: z.string(), managementUrl: z.string(), projectId: z.number().int().nullable(), uploadConcurrency: Count, qualityHold: z.string() }),
});
export type DiagnosticsReport = z.infer<typeof DiagnosticsReport>;

export const Diagnostics = z.object({
  report: DiagnosticsReport,
  /** The report as plain text, ready to paste into an issue or an e-mail. */
  text: z.string(),
});
export type Diagnostics = z.infer<typeof Diagnostics>;
