/** What can be streamed and recorded: serial ports, sources, streams, takes, AT boards, microphones. */
import { z } from 'zod';
import { Category } from '../category.js';
import {
  AtBoardInfo, AudioSettings, AudioStatus, MAX_DEMO_RATE_HZ, MAX_PRE_ROLL_MS, PortSettings, RecordingStatus, SerialPortInfo, Source, StreamInfo,
} from './capture-schema.js';
import { Label, none } from './method-args.js';
import { Metadata, Sample } from './sample-schema.js';

export const captureMethods = {
  'serial.listPorts': { input: none, output: z.array(SerialPortInfo) },
  'sources.list': { input: none, output: z.array(Source) },
  /** A port the system does not list (pseudo-terminal, Bluetooth rfcomm), remembered from now on. */
  'serial.addPath': { input: z.object({ path: z.string().min(1).max(4096) }).strict(), output: SerialPortInfo },
  'serial.removePath': { input: z.object({ path: z.string().min(1) }).strict(), output: z.object({ removed: z.boolean() }) },
  'serial.getSettings': { input: z.object({ path: z.string().min(1) }).strict(), output: PortSettings },
  'serial.setSettings': { input: z.object({ path: z.string().min(1), settings: PortSettings.partial() }).strict(), output: PortSettings },
  'stream.start': {
    input: z
      .object({
        sourceId: z.string().min(1),
        /** Only for the simulated source; real sources report the rate they measure. */
        rateHz: z.number().positive().max(MAX_DEMO_RATE_HZ).optional(),
      })
      .strict(),
    output: StreamInfo,
  },
  'stream.stop': { input: z.object({ sourceId: z.string().min(1) }).strict(), output: z.object({ stopped: z.boolean() }) },

  /** Records from one or more live sources at once; each becomes its own sample, sharing a session id. */
  'record.start': {
    input: z
      .object({
        sourceIds: z.array(z.string().min(1)).min(1).max(8),
        label: Label.nullable(),
        category: Category,
        metadata: Metadata.optional(),
        /** null or absent: until stopped. */
        lengthMs: z.number().int().positive().max(24 * 3600_000).nullable().optional(),
        queue: z.boolean().optional(),
        /** Microphones: audio from before the press to keep (default: the audio settings' pre-roll). */
        preRollMs: z.number().int().min(0).max(MAX_PRE_ROLL_MS).optional(),
      })
      .strict(),
    output: RecordingStatus,
  },
  'record.stop': { input: z.object({ sessionId: z.string() }).strict(), output: RecordingStatus },
  /**
   * The takes running now. A window opened (or reloaded) while a take records learns of it here,
   * so it can show it and stop it: otherwise a take without a length ran on with no Stop anywhere,
   * and Record said the source "is already being recorded".
   */
  'record.active': { input: none, output: z.array(RecordingStatus) },
  /** While recording: a label starts an event (ending the open one); null ends the open event. */
  'record.mark': { input: z.object({ sessionId: z.string(), label: Label.nullable() }).strict(), output: RecordingStatus },

  /** Connects to a board running the platform's firmware and reads its configuration. */
  'at.readBoard': { input: z.object({ path: z.string().min(1) }).strict(), output: AtBoardInfo },
  /** The board samples on its own; the sample is read back byte for byte (signed on the board). */
  'at.record': {
    input: z
      .object({
        path: z.string().min(1),
        sensor: z.string().min(1).optional(),
        frequencyHz: z.number().positive().max(100_000).optional(),
        lengthMs: z.number().int().positive().max(24 * 3600_000),
        label: Label.nullable(),
        category: Category,
        metadata: Metadata.optional(),
        queue: z.boolean().optional(),
      })
      .strict(),
    output: Sample,
  },

  'audio.settings': { input: none, output: AudioSettings },
  /** Which sound system is used, and what is stuck (a JACK metadata lock, a sound server) if anything. */
  'audio.status': { input: none, output: AudioStatus },
  /** A new rate restarts a running microphone capture with it. */
  'audio.setSettings': { input: AudioSettings.partial().strict(), output: AudioSettings },
} as const;
