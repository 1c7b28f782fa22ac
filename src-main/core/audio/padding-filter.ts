/**
 * Removes the silence node-web-audio-api makes up when the microphone is late.
 *
 * Its MediaStreamAudioSourceNode is clocked by the audio graph, not by the device: whenever the
 * device's next buffer has not arrived when the graph needs one, it inserts a render quantum
 * (128 frames) of exact zeros, and when the device catches up it is the device's frames that get
 * dropped. Measured here (PulseAudio null-sink monitor, 48 kHz): with the default latency a run
 * of 128 zeros every ~50 ms. Those inserted frames are not audio; counting them would stretch the
 * recording and put clicks in it.
 *
 * The signature is unambiguous for a real microphone: a run of exact zeros whose length is a
 * whole number of quanta (plus at most two natural zero samples at its ends), between non-zero
 * samples. Such runs up to `maxRunFrames` are dropped; longer runs are real digital silence (a
 * muted input) and pass through, as do shorter or odd-length runs. At the start, zeros before the
 * first real sample are the device warming up (≈1.5 s with PulseAudio) and are dropped, up to
 * `warmupFrames`.
 */
export const RENDER_QUANTUM = 128;

export interface PaddingFilterOptions {
  /** Longest run treated as inserted padding (default 1 s at 48 kHz). */
  maxRunFrames?: number;
  /** Longest leading silence dropped as warm-up (default 3 s at 48 kHz). */
  warmupFrames?: number;
}

export class PaddingFilter {
  readonly #maxRun: number;
  readonly #warmup: number;
  #run = 0; // zeros held back
  #passing = false; // the held run outgrew maxRun: zeros flow straight through until a non-zero
  #live = false;
  #leading = 0;
  #removed = 0;
  #removedRuns = 0;

  constructor(o: PaddingFilterOptions = {}) {
    this.#maxRun = o.maxRunFrames ?? 48_000;
    this.#warmup = o.warmupFrames ?? 3 * 48_000;
  }

  /** True once real input has arrived (or the warm-up limit passed). */
  get live(): boolean {
    return this.#live;
  }

  /** Frames of made-up silence dropped so far (not counting warm-up). */
  get removedFrames(): number {
    return this.#removed;
  }

  get removedRuns(): number {
    return this.#removedRuns;
  }

  /** Zeros in a row at the end of the input seen so far (held or passed): a stalled device shows here. */
  get trailingZeros(): number {
    return this.#run;
  }

  /** Returns the frames to keep (may be empty, or longer than `input` when held zeros turn out to be real). */
  process(input: Float32Array): Float32Array {
    const out = new Float32Array(input.length + this.#run); // zeros: held ones are released by advancing n
    let n = 0;
    for (let i = 0; i < input.length; i++) {
      const v = input[i]!;
      if (!this.#live) {
        if (v === 0) {
          if (++this.#leading >= this.#warmup) {
            this.#live = true; // a silent input: from now on its zeros are data
            this.#passing = true;
          }
          continue;
        }
        this.#live = true;
      }
      if (v === 0) {
        this.#run++;
        if (this.#passing) n++;
        else if (this.#run > this.#maxRun) {
          n += this.#run; // too long to be padding: release what was held, pass zeros from now on
          this.#passing = true;
        }
        continue;
      }
      if (this.#run > 0 && !this.#passing) {
        const extra = this.#run % RENDER_QUANTUM;
        if (this.#run >= RENDER_QUANTUM && extra <= 2) {
          this.#removed += this.#run - extra;
          this.#removedRuns++;
          n += extra; // natural zero samples next to the padding
        } else {
          n += this.#run;
        }
      }
      this.#run = 0;
      this.#passing = false;
      out[n++] = v;
    }
    return n === out.length ? out : out.slice(0, n);
  }

  /** At the end of the stream: held zeros shaped like padding are dropped, others are real. */
  flush(): Float32Array {
    const run = this.#run;
    this.#run = 0;
    if (this.#passing || run === 0) return new Float32Array(0);
    if (run >= RENDER_QUANTUM && run % RENDER_QUANTUM <= 2) {
      this.#removed += run;
      this.#removedRuns++;
      return new Float32Array(0);
    }
    return new Float32Array(run);
  }
}
