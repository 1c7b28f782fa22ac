// What a rate estimator says and how it is set up (rate-estimator.ts), apart so the estimator's file holds its workings.

export interface RateSnapshot {
  /** Estimated sampling frequency; null until there is enough data (3 lines over 2 periods). */
  frequencyHz: number | null;
  intervalMs: number | null;
  /** A common rate within 0.1 % of the estimate, offered, never applied silently. */
  suggestedHz: number | null;
  /** Standard deviation of chunk arrival times around the fitted line. */
  jitterMs: number | null;
  /** Lines the board sent that never arrived, estimated from where later lines fall in time. */
  droppedLines: number;
  /**
   * False when arrival jitter is too large against the period to tell a lost line from noise
   * (or before 16 chunks). Counts are exact for losses a few hundred chunks apart; losses much
   * denser than that in a very jittery stream may be miscounted by one or two.
   */
  dropsDetectable: boolean;
  pauses: number;
  lines: number;
  /** 'good': the ~95 % interval is within ±0.1 %. */
  confidence: 'none' | 'rough' | 'good';
  relativeError: number | null;
}

export interface RateEstimatorOptions {
  /** Chunk arrivals kept for the fit; default 4096. */
  maxPoints?: number;
  /** Oldest arrival kept, in ms before the newest; default 120 s. */
  windowMs?: number;
  /** A silence longer than this many periods (and than pauseMinMs) is a pause, not lost lines. */
  pauseFactor?: number;
  pauseMinMs?: number;
}
