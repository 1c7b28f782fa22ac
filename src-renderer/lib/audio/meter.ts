/**
 * Display maths of the microphone's live view: where a dBFS level sits on the meter, and a
 * scrolling min/max waveform kept as a fixed ring of columns (memory never grows, the UI never
 * sees raw samples: the core sends ~30 level reports a second, each with a few new columns).
 */

/** The meter's bottom: quieter than this is shown as an empty bar. */
export const METER_FLOOR_DBFS = -60;

/** 0…1 along the meter for a level in dBFS (0 dBFS = full). Linear in dB, as meters are read. */
export function meterFraction(dbfs: number, floorDbfs = METER_FLOOR_DBFS): number {
  if (!Number.isFinite(dbfs)) return 0;
  return Math.min(1, Math.max(0, (dbfs - floorDbfs) / -floorDbfs));
}

/** The level as people read it: one decimal, "−∞" below the floor the core reports for silence. */
export function formatDbfs(dbfs: number): string {
  return dbfs <= -120 ? '−∞ dBFS' : `${dbfs.toFixed(1).replace('-', '−')} dBFS`;
}

export type LevelWarning = 'clipping' | 'silent' | null;

/** Clipping matters more than silence (both cannot really happen at once). */
export function levelWarning(l: { clipping: boolean; silent: boolean }): LevelWarning {
  return l.clipping ? 'clipping' : l.silent ? 'silent' : null;
}

/**
 * The last `capacity` waveform columns, oldest first when read. Columns arrive as [min, max]
 * pairs; a gap in the frame positions (a missed report) is not filled: the waveform scrolls on.
 */
export class WaveformHistory {
  readonly capacity: number;
  readonly #min: Float32Array;
  readonly #max: Float32Array;
  #next = 0;
  #count = 0;
  /** Columns ever pushed: the view redraws only when this moves. */
  total = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError(`capacity must be a positive whole number; got ${capacity}`);
    this.capacity = capacity;
    this.#min = new Float32Array(capacity);
    this.#max = new Float32Array(capacity);
  }

  /** `pairs`: [min0, max0, min1, max1, …] in −1…1. */
  push(pairs: ArrayLike<number>): void {
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      this.#min[this.#next] = pairs[i]!;
      this.#max[this.#next] = pairs[i + 1]!;
      this.#next = (this.#next + 1) % this.capacity;
      if (this.#count < this.capacity) this.#count++;
      this.total++;
    }
  }

  get length(): number {
    return this.#count;
  }

  /** Column `i` (0 = oldest kept). */
  at(i: number): [number, number] {
    const k = (this.#next - this.#count + i + this.capacity) % this.capacity;
    return [this.#min[k]!, this.#max[k]!];
  }

  clear(): void {
    this.#next = 0;
    this.#count = 0;
  }
}

/**
 * Vertical pixel spans to draw for a canvas `width` × `height`: each pixel column gets the
 * min/max of the columns that fall on it (right-aligned: the newest audio at the right edge).
 * Returns [x, yTop, yBottom] triples; y grows downwards, 0 amplitude is the middle line.
 */
export function waveformSpans(h: WaveformHistory, width: number, height: number): Float32Array {
  const n = h.length;
  const px = Math.max(1, Math.floor(width));
  const perPx = h.capacity / px; // columns per pixel when the history is full
  const used = Math.min(px, Math.ceil(n / perPx));
  const out = new Float32Array(used * 3);
  const mid = height / 2;
  for (let p = 0; p < used; p++) {
    // Pixel p counted from the right edge covers columns [from, to) counted from the newest.
    const from = Math.floor(p * perPx);
    const to = Math.max(from + 1, Math.floor((p + 1) * perPx));
    let lo = Infinity;
    let hi = -Infinity;
    for (let c = from; c < to && c < n; c++) {
      const [mn, mx] = h.at(n - 1 - c);
      if (mn < lo) lo = mn;
      if (mx > hi) hi = mx;
    }
    if (lo === Infinity) continue;
    const o = p * 3;
    out[o] = px - 1 - p;
    out[o + 1] = mid - Math.min(1, hi) * mid;
    out[o + 2] = mid - Math.max(-1, lo) * mid;
  }
  return out;
}
