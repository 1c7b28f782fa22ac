/**
 * Shapes of what can be streamed and recorded: serial ports and their settings, sources, streams
 * and their health, microphones, boards running the platform's firmware (AT), and a recording.
 */
import { z } from 'zod';
import { PlatformRequestInfo } from './remote-schema.js';
import { WireError } from './wire-schema.js';

export const SerialPortInfo = z.object({
  path: z.string(),
  friendlyName: z.string(),
  manufacturer: z.string().optional(),
  serialNumber: z.string().optional(),
  vendorId: z.string().optional(),
  productId: z.string().optional(),
  /** What the USB id says it is: a board ("Arduino Nano 33 BLE") or a bridge chip ("CH340 USB–serial bridge"). */
  board: z.string().optional(),
  /** Added by path by the person (a pseudo-terminal, a Bluetooth port) and not listed by the system: it can be forgotten. */
  addedByPath: z.boolean().optional(),
});
export type SerialPortInfo = z.infer<typeof SerialPortInfo>;

/** Remembered per board (by USB serial number, else by path). */
export const PortSettings = z.object({
  /** 'auto': found from the board's own output (the remembered rate first); a number forces it. */
  baudRate: z.union([z.literal('auto'), z.number().int().min(300).max(12_000_000)]),
  /**
   * lines: a streaming board (numbers per line, or a Nordic data forwarder, told apart by the
   * stream itself); nordic: Nordic's data forwarder only; at: the platform's firmware.
   */
  mode: z.enum(['lines', 'at', 'nordic']),
  /** Override of the detected frequency; null = use the measured one. */
  frequencyHz: z.number().positive().max(100_000).nullable(),
  axes: z.array(z.string().min(1).max(64)).max(64).nullable(),
  units: z.array(z.string().max(32)).max(64).nullable(),
});
export type PortSettings = z.infer<typeof PortSettings>;

/** Anything the user can stream from: a serial port, the built-in simulator, a microphone ("audio:<deviceId>"). */
export const Source = z.object({
  id: z.string(),
  kind: z.enum(['simulated', 'serial', 'audio']),
  name: z.string(),
  /** Shown next to the name, e.g. "simulated – not real data" or a USB serial number. */
  detail: z.string(),
  streaming: z.boolean(),
  /** Serial ports: what the USB id says it is ("Arduino Nano 33 BLE", "CH340 USB–serial bridge"). */
  board: z.string().optional(),
  /** Serial ports while they stream: what the stream says (the port is not opened again to ask); rateHz null until measured; baud the rate the port is read at. */
  stream: z.object({ axes: z.number().int().nonnegative(), rateHz: z.number().positive().nullable(), baud: z.number().int().positive().optional() }).optional(),
  /** Microphones: the system's default input. */
  default: z.boolean().optional(),
  /** Serial ports added by path that the system does not list (serial.removePath forgets them). */
  addedByPath: z.boolean().optional(),
});
export type Source = z.infer<typeof Source>;

export const StreamInfo = z.object({
  sourceId: z.string(),
  axes: z.array(z.object({ name: z.string(), units: z.string() })),
  rateHz: z.number().positive(),
  simulated: z.boolean(),
  /** A serial board's baud rate: the one used, whether it was found (Auto) or set, the rates tried before it. */
  baud: z.object({ rate: z.number().int().positive(), detected: z.boolean(), tried: z.array(z.number().int().positive()) }).optional(),
});
export type StreamInfo = z.infer<typeof StreamInfo>;

/** Live health of a stream: what the reader measured and what it refused. */
export const StreamStats = z.object({
  sourceId: z.string(),
  frequencyHz: z.number().nullable(),
  /** A common rate within 0.1% of the measured one, if any (shown, never applied silently). */
  suggestedHz: z.number().nullable(),
  jitterMs: z.number().nullable(),
  /** Half-width of the rate's ~95 % interval, relative to it (0.001 = ±0.1 %); null until measured. */
  rateRelativeError: z.number().nonnegative().nullable().optional(),
  droppedLines: z.number().int().nonnegative(),
  goodLines: z.number().int().nonnegative(),
  badLines: z.number().int().nonnegative(),
  badByReason: z.record(z.string(), z.number().int().nonnegative()),
  lastBadLine: z.string().nullable(),
  /** What the board speaks, once told: numbers per line, or Nordic's data forwarder (framed CBOR with seq numbers). */
  protocol: z.enum(['lines', 'nordic']).optional(),
  /** Nordic: the device name from its session info. */
  deviceName: z.string().optional(),
  /** Nordic: of `droppedLines` (known exactly from seq numbers), how many the board says it dropped itself (`dr`). */
  deviceDrops: z.number().int().nonnegative().optional(),
  /** Nordic: the rate the board's own timestamps (`ts`) give, once a second of them has come. */
  boardClockHz: z.number().positive().optional(),
});
export type StreamStats = z.infer<typeof StreamStats>;

export const DEMO_SOURCE_ID = 'simulated:imu';
export const MAX_DEMO_RATE_HZ = 20_000;

export const StreamBatch = z.object({
  sourceId: z.string(),
  /** Increments per batch; a gap tells the UI it missed batches (slow client). */
  seq: z.number().int().nonnegative(),
  /** Index of the first row since the stream started. */
  firstIndex: z.number().int().nonnegative(),
  axisCount: z.number().int().positive(),
  /** rows × axisCount values, row-major. One message carries many rows: never one per sample. */
  values: z.instanceof(Float32Array),
  rateHz: z.number().positive(),
});
export type StreamBatch = z.infer<typeof StreamBatch>;

export const RecordingStatus = z.object({
  sessionId: z.string(),
  state: z.enum(['recording', 'saving', 'saved', 'failed']),
  sourceIds: z.array(z.string()),
  startedAt: z.string(),
  lengthMs: z.number().nullable(),
  /** Filled in once saved; a source that dropped out mid-way yields an incomplete sample. */
  sampleIds: z.array(z.string()),
  /** Of those, how many went into the upload queue, and how many the data-quality setting held back. */
  queued: z.number().int().nonnegative(),
  held: z.number().int().nonnegative(),
  error: z.string().nullable(),
  /** Events marked while recording (ms from the start); saved as each sample's structured labels. */
  events: z.array(z.object({ label: z.string(), startMs: z.number().nonnegative(), endMs: z.number().nonnegative().nullable() })),
  /** Sources that dropped out mid-recording (unplugged, busy): their part is kept as an incomplete sample. */
  interruptions: z.array(z.object({ sourceId: z.string(), error: WireError })),
  /** Set when the platform asked for this take (remote management): the live view says so. */
  platform: PlatformRequestInfo.nullable().optional(),
});
export type RecordingStatus = z.infer<typeof RecordingStatus>;

// ---------- microphones ----------

export const MIN_AUDIO_RATE = 8000;
export const MAX_AUDIO_RATE = 48_000;
export const MAX_PRE_ROLL_MS = 10_000;
/** Remembered across restarts; the live view and recordings of a microphone use them. */
export const AudioSettings = z.object({
  /** The microphone picked last (null = the system default). */
  deviceId: z.string().min(1).nullable(),
  sampleRate: z.number().int().min(MIN_AUDIO_RATE).max(MAX_AUDIO_RATE),
  /** Audio from before the record key was pressed that a recording keeps. */
  preRollMs: z.number().int().min(0).max(MAX_PRE_ROLL_MS),
});
export type AudioSettings = z.infer<typeof AudioSettings>;

/** The sound system microphones are read through, and what is wrong with it (e.g. stuck), in sentences. */
export const AudioStatus = z.object({
  /** e.g. "ALSA (PulseAudio/PipeWire through it): no JACK server is running, so libjack is never loaded"; null before the first listing. */
  host: z.string().nullable(),
  /** What is stuck and what to do, or why listing failed; null when all is well. */
  problem: z.string().nullable(),
});
export type AudioStatus = z.infer<typeof AudioStatus>;

/** ~30 per second while a microphone streams: what the meter and waveform draw (raw PCM never goes to the UI). */
export const AudioLevels = z.object({
  sourceId: z.string(),
  sampleRate: z.number().positive(),
  /** Index (since the capture started) of the first frame this report covers. */
  firstFrame: z.number().int().nonnegative(),
  rmsDbfs: z.number(),
  peakDbfs: z.number(),
  /** Something reached full scale within the last second. */
  clipping: z.boolean(),
  /** Below −60 dBFS for two seconds (muted or dead microphone). */
  silent: z.boolean(),
  /** New waveform columns as [min, max] pairs (−1…1), `columnsPerSecond` per second. */
  waveform: z.instanceof(Float32Array),
  columnsPerSecond: z.number().positive(),
});
export type AudioLevels = z.infer<typeof AudioLevels>;

// ---------- boards running the platform's firmware (AT) ----------

export const AtBoardInfo = z.object({
  deviceId: z.string(),
  deviceType: z.string(),
  atVersion: z.string(),
  transferBaudRate: z.number().nullable(),
  sensors: z.array(z.object({ name: z.string(), maxSampleLengthS: z.number().nullable(), frequencies: z.array(z.number()) })),
});
export type AtBoardInfo = z.infer<typeof AtBoardInfo>;

/** What an AT board is doing while it records: the firmware's stages, then the read-back. */
export const AtProgress = z.object({
  path: z.string(),
  stage: z.enum(['connecting', 'sampling', 'sampled', 'processing', 'processed', 'uploading', 'reading', 'saved', 'failed']),
  receivedBytes: z.number().int().nonnegative().optional(),
  totalBytes: z.number().int().nonnegative().nullable().optional(),
  error: z.string().optional(),
});
export type AtProgress = z.infer<typeof AtProgress>;
