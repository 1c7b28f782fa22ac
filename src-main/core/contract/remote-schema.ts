/**
 * What the UI learns about sources connected to the platform's remote-management service (one
 * platform device per source). Part of the contract (contract.ts imports it); no Node imports here.
 */
import { z } from 'zod';

/** One sensor as announced in the hello: the platform offers these names, rates and lengths. */
export const RemoteSensor = z.object({
  name: z.string(),
  maxSampleLengthS: z.number().nonnegative(),
  frequencies: z.array(z.number().positive()),
});
export type RemoteSensor = z.infer<typeof RemoteSensor>;

/**
 * off: not connected to the platform; preparing: reading the board (axes, rate, AT+CONFIG?) before
 * the hello; connecting: socket opening or hello sent; online: the platform accepted the hello;
 * recording: a sample the platform asked for is in progress; reconnecting: waiting `retryInMs`
 * before the next attempt; refused: the platform refused the hello (the API key), no retry until
 * the key changes; failed: the source cannot be described (unplugged, no data), retried later.
 */
export const RemoteLinkState = z.enum(['off', 'preparing', 'connecting', 'online', 'recording', 'reconnecting', 'refused', 'failed']);
export type RemoteLinkState = z.infer<typeof RemoteLinkState>;

/** A sample the platform asked this device for, while it is being honoured (and the last one after). */
export const RemoteRequest = z.object({
  label: z.string(),
  lengthMs: z.number().nonnegative(),
  sensor: z.string().nullable(),
  category: z.enum(['training', 'validation', 'testing', 'post-processing']),
  /** Where the platform asked for it to go on the ingestion service (e.g. /api/training/data). */
  path: z.string(),
  /** requested → recording → saving → uploading → finished | failed */
  stage: z.enum(['requested', 'recording', 'saving', 'uploading', 'finished', 'failed']),
  /** The sample kept (the first part's when a board's restart split the take; all of them in sampleIds). */
  sampleId: z.string().nullable(),
  sampleIds: z.array(z.string()),
  error: z.string().nullable(),
  /** The platform's display hints: progress toward a target for this label. */
  collectedSampleCount: z.number().nullable(),
  targetSampleCount: z.number().nullable(),
  labelColor: z.string().nullable(),
  at: z.string(),
});
export type RemoteRequest = z.infer<typeof RemoteRequest>;

export const RemoteDevice = z.object({
  sourceId: z.string(),
  /** "Connect to platform" is on for this source (remembered per board and microphone). */
  enabled: z.boolean(),
  /** The id the platform knows this device by (stable across restarts and re-plugging). */
  deviceId: z.string(),
  deviceType: z.string(),
  /** The name given with Rename (null: the platform shows the device id). */
  name: z.string().nullable(),
  state: RemoteLinkState,
  /** reconnecting: how long until the next attempt, as of this event. */
  retryInMs: z.number().nonnegative().nullable(),
  /** refused / failed / reconnecting: why, in words a person can act on. */
  reason: z.string().nullable(),
  sensors: z.array(RemoteSensor),
  /** A streaming serial board's baud rate and whether it was found (Auto); null for the others or until read. */
  baud: z.object({ rate: z.number().int().positive(), detected: z.boolean() }).nullable().optional(),
  request: RemoteRequest.nullable(),
});
export type RemoteDevice = z.infer<typeof RemoteDevice>;

/** Shown in the live view while a platform-requested take records. */
export const PlatformRequestInfo = z.object({
  deviceId: z.string(),
  label: z.string(),
  lengthMs: z.number().nonnegative(),
  collectedSampleCount: z.number().nullable(),
  targetSampleCount: z.number().nullable(),
});
export type PlatformRequestInfo = z.infer<typeof PlatformRequestInfo>;

/** ws:// or wss:// (the platform's own service is wss://remote-mgmt.edgeimpulse.com). */
export const wsUrl = z
  .string()
  .trim()
  .refine((s) => /^wss?:\/\/[^\s/]+/i.test(s), { message: 'must be a ws:// or wss:// URL' });
