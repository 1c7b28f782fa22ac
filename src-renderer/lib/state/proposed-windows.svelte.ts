import type { DetectedWindow } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import { clampStart } from '../review/window-keys.js';

export interface DetectSettings {
  /** null until the first answer: the core picks the project's window (Settings), else 1000 ms. */
  windowMs: number | null;
  /** Over the measured noise floor, in dB (the contract takes the amplitude ratio). */
  thresholdDb: number;
  minGapMs: number;
  keepEdges: boolean;
}

/**
 * The split windows detected in one sample, shown over its plot before anything is cut. The
 * person moves the threshold (the windows follow: only the newest answer is kept), removes or
 * drags single windows, then splits exactly what is shown.
 */
export class ProposedWindows {
  /** Drawn over the plot and spectrogram while the split panel is on "detected automatically". */
  active = $state(false);
  settings = $state<DetectSettings>({ windowMs: null, thresholdDb: 12, minGapMs: 250, keepEdges: false });
  windows = $state.raw<DetectedWindow[]>([]);
  floorDbfs = $state<number | null>(null);
  droppedAtEdges = $state(0);
  /** Windows the person removed since the last detection. */
  removed = $state(0);
  detecting = $state(false);
  error = $state<string | null>(null);
  /** The window with keyboard focus on the plot, drawn highlighted on the plot and spectrogram. */
  focused = $state<number | null>(null);
  #asked = 0;

  constructor(private readonly api: Api, private readonly sampleId: string, private readonly lengthMs: () => number) {}

  async detect(): Promise<void> {
    const asked = ++this.#asked;
    const s = this.settings;
    this.detecting = true;
    try {
      const r = await this.api.call('samples.detectEvents', {
        id: this.sampleId,
        params: { ...(s.windowMs !== null ? { windowMs: s.windowMs } : {}), threshold: 10 ** (s.thresholdDb / 20), minGapMs: s.minGapMs, keepEdges: s.keepEdges },
      });
      if (asked !== this.#asked) return;
      if (s.windowMs === null) this.settings.windowMs = r.windowMs;
      this.windows = r.windows;
      this.floorDbfs = r.floorDbfs;
      this.droppedAtEdges = r.droppedAtEdges;
      this.removed = 0;
      this.error = null;
    } catch (err) {
      if (asked !== this.#asked) return;
      this.windows = [];
      this.error = errorText(err);
    } finally {
      if (asked === this.#asked) this.detecting = false;
    }
  }

  remove(index: number): void {
    this.windows = this.windows.filter((_, i) => i !== index);
    this.removed++;
  }

  /** Moves a window to start at `startMs`, kept inside the sample; its length stays. */
  move(index: number, startMs: number): void {
    const w = this.windows[index];
    if (!w) return;
    const len = w.endMs - w.startMs;
    const start = clampStart(startMs, len, this.lengthMs());
    this.windows = this.windows.map((x, i) => (i === index ? { ...x, startMs: start, endMs: start + len } : x));
  }

  /** The window under `ms` (the later one where two overlap), or -1. */
  at(ms: number): number {
    for (let i = this.windows.length - 1; i >= 0; i--) if (ms >= this.windows[i]!.startMs && ms <= this.windows[i]!.endMs) return i;
    return -1;
  }
}
