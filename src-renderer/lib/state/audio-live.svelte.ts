import type { AudioLevels } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { levelWarning, WaveformHistory, type LevelWarning } from '../audio/meter.js';

/** Seconds of waveform on screen. */
const WINDOW_SECONDS = 5;

/**
 * The live view of a microphone: the latest level and warnings are reactive; the waveform is a
 * ring the canvas reads on its own animation frame (never a reactive array).
 */
export class AudioLive {
  rmsDbfs = $state(-120);
  peakDbfs = $state(-120);
  /** Highest peak of the last second or so, for the meter's hold mark. */
  holdDbfs = $state(-120);
  warning = $state<LevelWarning>(null);
  reports = $state(0);
  sampleRate = $state<number | null>(null);
  history: WaveformHistory | null = null;
  #holdUntil = 0;

  constructor(private readonly api: Api) {}

  /** Follows `sourceId`'s level reports; returns the cleanup for an $effect. */
  follow(sourceId: string): () => void {
    this.reports = 0;
    this.history = null;
    this.warning = null;
    return this.api.on('audio.levels', (l) => {
      if (l.sourceId === sourceId) this.accept(l);
    });
  }

  accept(l: AudioLevels): void {
    const columns = Math.round(l.columnsPerSecond * WINDOW_SECONDS);
    if (!this.history || this.history.capacity !== columns) this.history = new WaveformHistory(columns);
    this.history.push(l.waveform);
    this.rmsDbfs = l.rmsDbfs;
    this.peakDbfs = l.peakDbfs;
    const now = performance.now();
    if (l.peakDbfs >= this.holdDbfs || now > this.#holdUntil) {
      this.holdDbfs = l.peakDbfs;
      this.#holdUntil = now + 1500;
    }
    this.warning = levelWarning(l);
    this.sampleRate = l.sampleRate;
    this.reports++;
  }
}
