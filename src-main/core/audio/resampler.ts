/**
 * Streaming sample-rate converter: a Kaiser-windowed sinc low-pass evaluated at the exact
 * fractional position of every output sample (band-limited interpolation, as in libresample and
 * Julius O. Smith's "Digital Audio Resampling"). Works for any pair of integer rates, keeps
 * state across chunks (chunk boundaries are invisible in the output), and never drifts: the read
 * position is kept as an exact fraction.
 *
 * When downsampling, the cut-off follows the output's Nyquist frequency, so a tone above it is
 * removed instead of folding back as an alias (what linear interpolation would do).
 */

export interface ResamplerOptions {
  /** Zero crossings of the sinc on each side; more = sharper transition band. */
  zeroCrossings?: number;
  /** Kaiser window beta: ~8.6 gives ~-90 dB stop band. */
  beta?: number;
  /** Table entries per zero crossing; coefficients between entries are interpolated linearly. */
  tableResolution?: number;
  /**
   * Fraction of the (lower) Nyquist frequency where the stop band begins; the pass band ends a
   * transition width below it.
   */
  stopBandEdge?: number;
}

export class StreamResampler {
  readonly inRate: number;
  readonly outRate: number;
  /** Output samples per input sample. */
  readonly ratio: number;
  readonly #passThrough: boolean;
  /** Input step per output sample as an exact fraction stepInt + stepNum/den. */
  readonly #stepInt: number;
  readonly #stepNum: number;
  readonly #den: number;
  /** Cut-off in cycles per input sample, times 2 (so sinc zero crossings are at integer x). */
  readonly #fc2: number;
  readonly #gain: number;
  readonly #halfWidth: number; // input samples on each side of the output position
  readonly #table: Float32Array;
  /**
   * For ratios with few distinct phases (48 kHz → 16 kHz has one, 44.1 kHz → 16 kHz 160): the
   * 2·halfWidth coefficients of every phase, precomputed, so each output is a plain dot product.
   */
  readonly #bank: Float32Array | null;
  readonly #res: number;
  readonly #zc: number;
  /** Unconsumed input, preceded by `halfWidth` samples of history. */
  #buf: Float32Array;
  #len = 0;
  /** Position of the next output sample in #buf: #posInt + #posNum / #den. */
  #posInt: number;
  #posNum = 0;
  #inputs = 0;
  #outputs = 0;

  constructor(inRate: number, outRate: number, o: ResamplerOptions = {}) {
    if (!Number.isInteger(inRate) || !Number.isInteger(outRate) || inRate <= 0 || outRate <= 0) {
      throw new RangeError(`sample rates must be positive whole numbers of Hz; got ${inRate} -> ${outRate}`);
    }
    this.inRate = inRate;
    this.outRate = outRate;
    this.ratio = outRate / inRate;
    this.#passThrough = inRate === outRate;
    const g = gcd(inRate, outRate);
    this.#den = outRate / g;
    const num = inRate / g; // step = num / den input samples per output sample
    this.#stepInt = Math.floor(num / this.#den);
    this.#stepNum = num % this.#den;

    this.#zc = o.zeroCrossings ?? 32;
    const beta = o.beta ?? 8.6;
    this.#res = o.tableResolution ?? 512;
    const edge = o.stopBandEdge ?? 1.0;
    // Kaiser: a window of N taps has a transition band of (A - 8) / (2.285 · 2π · N) cycles per
    // sample, A ≈ beta / 0.1102 + 8.7 dB. Our kernel spans N = zc / fc input samples, so the
    // transition is a fixed fraction of the cut-off fc; put fc where the stop band starts at
    // `edge` × the lower Nyquist frequency (nothing above the output's Nyquist survives).
    const lowerNyquist = 0.5 * Math.min(1, this.ratio); // cycles per input sample
    const attenuationDb = beta / 0.1102 + 8.7;
    const halfTransition = (attenuationDb - 8) / (2 * 2.285 * 2 * Math.PI * this.#zc); // × fc
    const fc = (edge * lowerNyquist) / (1 + halfTransition);
    this.#fc2 = 2 * fc;
    this.#gain = this.#fc2; // unity DC gain for the sinc sampled at input spacing
    this.#halfWidth = Math.ceil(this.#zc / this.#fc2);
    this.#table = kaiserSincTable(this.#zc, this.#res, beta);
    const taps = 2 * this.#halfWidth;
    this.#bank = this.#passThrough || this.#den * taps > MAX_BANK ? null : this.#makeBank(taps, beta);

    this.#buf = new Float32Array(this.#halfWidth * 2 + 4096);
    this.#len = this.#halfWidth; // zero history before the first sample
    this.#posInt = this.#halfWidth;
  }

  /** Input samples consumed and output samples produced so far. */
  get counts(): { inputs: number; outputs: number } {
    return { inputs: this.#inputs, outputs: this.#outputs };
  }

  /** Delay of the output in output samples (the filter looks this far ahead). */
  get latencyOut(): number {
    return this.#passThrough ? 0 : Math.ceil(this.#halfWidth * this.ratio);
  }

  /** Feeds input; returns whatever output is now complete (a new array the caller owns). */
  process(input: Float32Array): Float32Array {
    this.#inputs += input.length;
    if (this.#passThrough) {
      this.#outputs += input.length;
      return input.slice();
    }
    this.#append(input);
    return this.#drain(this.#len - this.#halfWidth);
  }

  /**
   * Ends the stream: outputs the samples that still wait for look-ahead, as if silence
   * followed. After it, ceil(inputs × ratio) samples have come out in all.
   */
  flush(): Float32Array {
    if (this.#passThrough) return new Float32Array(0);
    const inputEnd = this.#len; // exclusive end of the real input in #buf
    this.#append(new Float32Array(this.#halfWidth + 2));
    return this.#drain(inputEnd);
  }

  #append(input: Float32Array): void {
    if (this.#len + input.length > this.#buf.length) {
      const grown = new Float32Array(Math.max(this.#buf.length * 2, this.#len + input.length));
      grown.set(this.#buf.subarray(0, this.#len));
      this.#buf = grown;
    }
    this.#buf.set(input, this.#len);
    this.#len += input.length;
  }

  /** Produces output samples whose position is below `limit` (in #buf coordinates). */
  #drain(limit: number): Float32Array {
    const den = this.#den;
    // Count outputs first so the result is allocated once.
    let n = 0;
    {
      let pi = this.#posInt;
      let pn = this.#posNum;
      while (pi < limit) {
        n++;
        pi += this.#stepInt;
        pn += this.#stepNum;
        if (pn >= den) {
          pn -= den;
          pi++;
        }
      }
    }
    const out = new Float32Array(n);
    if (this.#bank) this.#drainBank(out);
    else this.#drainTable(out);
    this.#outputs += n;
    // Drop input no future output can reach (keep halfWidth of history before the position).
    const keepFrom = Math.max(0, this.#posInt - this.#halfWidth);
    if (keepFrom > 0) {
      this.#buf.copyWithin(0, keepFrom, this.#len);
      this.#len -= keepFrom;
      this.#posInt -= keepFrom;
    }
    return out;
  }

  #makeBank(taps: number, beta: number): Float32Array {
    const bank = new Float32Array(this.#den * taps);
    const i0b = besselI0(beta);
    for (let p = 0; p < this.#den; p++) {
      const frac = p / this.#den;
      for (let m = 0; m < taps; m++) {
        const x = Math.abs(m - this.#halfWidth + 1 - frac) * this.#fc2; // in zero crossings
        bank[p * taps + m] = kaiserSinc(x, this.#zc, beta, i0b) * this.#gain;
      }
    }
    return bank;
  }

  #advance(): void {
    this.#posInt += this.#stepInt;
    this.#posNum += this.#stepNum;
    if (this.#posNum >= this.#den) {
      this.#posNum -= this.#den;
      this.#posInt++;
    }
  }

  #drainBank(out: Float32Array): void {
    const buf = this.#buf;
    const bank = this.#bank!;
    const taps = 2 * this.#halfWidth;
    const hw = this.#halfWidth;
    for (let k = 0; k < out.length; k++) {
      const base = this.#posNum * taps;
      const lo = this.#posInt - hw + 1;
      let acc = 0;
      for (let m = 0; m < taps; m++) acc += buf[lo + m]! * bank[base + m]!;
      out[k] = acc;
      this.#advance();
    }
  }

  #drainTable(out: Float32Array): void {
    const n = out.length;
    const den = this.#den;
    const buf = this.#buf;
    const table = this.#table;
    const res = this.#res;
    const zc = this.#zc;
    const fc2 = this.#fc2;
    const hw = this.#halfWidth;
    const gain = this.#gain;
    for (let k = 0; k < n; k++) {
      const frac = this.#posNum / den;
      const center = this.#posInt;
      let acc = 0;
      const lo = center - hw + 1;
      const hi = center + hw;
      for (let j = lo; j <= hi; j++) {
        const x = Math.abs(j - center - frac) * fc2; // distance in zero crossings
        if (x >= zc) continue;
        const t = x * res;
        const i = t | 0;
        const c = table[i]! + (table[i + 1]! - table[i]!) * (t - i);
        acc += buf[j]! * c;
      }
      out[k] = acc * gain;
      this.#advance();
    }
  }
}

/** Converts a whole signal at once (tests, offline use). */
export function resample(input: Float32Array, inRate: number, outRate: number, o?: ResamplerOptions): Float32Array {
  const r = new StreamResampler(inRate, outRate, o);
  const a = r.process(input);
  const b = r.flush();
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** sinc(x) · kaiser(x / zc) for x = 0 … zc in steps of 1/res (one extra entry for interpolation). */
function kaiserSincTable(zc: number, res: number, beta: number): Float32Array {
  const n = zc * res + 2;
  const t = new Float32Array(n);
  const i0b = besselI0(beta);
  for (let i = 0; i < n; i++) t[i] = kaiserSinc(i / res, zc, beta, i0b);
  return t;
}

/** The windowed sinc at x zero crossings from its centre. */
function kaiserSinc(x: number, zc: number, beta: number, i0b: number): number {
  if (x >= zc) return 0;
  const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
  const r = x / zc;
  return sinc * (besselI0(beta * Math.sqrt(1 - r * r)) / i0b);
}

/** Modified Bessel function of the first kind, order 0 (power series). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 64; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

/** Coefficients kept for polyphase filtering at most (8 MB of Float32). */
const MAX_BANK = 1 << 21;

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}
