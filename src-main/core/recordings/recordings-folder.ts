import type { Category } from '../contract/contract.js';

/**
 * The folder, inside the data folder, where recordings live while they run: a sensor recording's
 * rows (capture/sensor-recorder.ts), a microphone recording's WAV with its note
 * (audio/audio-recording.ts). What a crash leaves there becomes a sample at the next start
 * (capture/recording-recovery.ts).
 */
export const RECORDINGS_DIR = 'recordings';

/** Written beside `<id>.wav` when a microphone recording starts; removed once it is saved. */
export interface AudioRecordingNote {
  label: string | null;
  category: Category;
  metadata: Record<string, string>;
  sampleRate: number;
  device: string;
  started: string;
  /** The process recording it: while that one lives (a CLI recording beside the app), hands off. */
  pid: number;
}
