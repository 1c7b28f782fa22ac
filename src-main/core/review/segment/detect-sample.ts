import type { DetectParams, EventDetection, Sample } from '../../contract/contract.js';
import type { Decoded } from '../decoded.js';
import { analyse, DEFAULT_WINDOW_MS, DETECT_DEFAULTS, detectIn, type Analysis } from './detect.js';

/**
 * The analysis of the last few samples (activity and floor), so moving the threshold slider
 * only re-runs the cheap thresholding: an hour of audio answers in milliseconds, not a second.
 */
export class DetectionCache {
  readonly #entries = new Map<string, Analysis>();

  constructor(private readonly size = 4) {}

  get(sample: Pick<Sample, 'id' | 'sha256'>, d: Decoded): Analysis {
    const key = `${sample.id}:${sample.sha256}`;
    let hit = this.#entries.get(key);
    if (hit) this.#entries.delete(key);
    else hit = analyse(d);
    this.#entries.set(key, hit);
    for (const k of this.#entries.keys()) {
      if (this.#entries.size <= this.size) break;
      this.#entries.delete(k);
    }
    return hit;
  }
}

/** Detection in the contract's terms (ms, dB). No events is an empty list here: the UI says so. */
export function detectForSample(cache: DetectionCache, sample: Pick<Sample, 'id' | 'sha256'>, d: Decoded, p: DetectParams): EventDetection {
  const windowMs = p.windowMs ?? DEFAULT_WINDOW_MS;
  const threshold = p.threshold ?? DETECT_DEFAULTS.threshold;
  const minGapMs = p.minGapMs ?? DETECT_DEFAULTS.minGapMs;
  const det = detectIn(cache.get(sample, d), { windowMs, threshold, minGapMs, keepEdges: p.keepEdges ?? DETECT_DEFAULTS.keepEdges });
  const ms = (row: number) => row * d.intervalMs;
  return {
    windows: det.windows.map((w) => ({
      startMs: ms(w.from), endMs: ms(w.to), eventStartMs: ms(w.event.from), eventEndMs: ms(w.event.to), peakDb: 20 * Math.log10(w.event.peakRatio), shifted: w.shifted,
    })),
    droppedAtEdges: det.droppedAtEdges,
    floorDbfs: d.kind === 'audio' ? 10 * Math.log10(det.floorPower) : null,
    windowMs, threshold, minGapMs,
  };
}
