import type { QualityFinding } from '../../contract/contract.js';
import { LOST_ERROR_FRACTION } from './counters-check.js';
import { finding, formatMs, percent } from './findings.js';

/** An axis repeating one exact value this long is a stuck or unplugged sensor, not a quiet one. */
export const FLAT_STRETCH_MS = 2000;
const FLAT_STRETCH_MIN_ROWS = 20;
/** Axes a sketch prints its clock in (millis(), micros()); checked for gaps, not for flat lines. */
const TIME_AXIS = /^(t|ts|time|timestamp|millis|micros|ms|us|time_?ms|time_?us)$/i;
/** Steps used to learn the clock's usual step before gaps can be judged. */
const LEARN_STEPS = 64;

/**
 * Looks at every row once, as it streams past, keeping a few numbers per axis: whether the axis
 * ever changed, its longest run of one exact value, and for a clock axis the steps bigger than
 * its usual step (readings that never arrived). Memory does not grow with the sample.
 */
export class AxisScan {
  rows = 0;
  readonly #width: number;
  readonly #first: Float64Array;
  readonly #changed: Uint8Array;
  readonly #runValue: Float64Array;
  readonly #runLength: Float64Array;
  readonly #longest: Float64Array;
  readonly #timeAxis: number;
  #prevTime = NaN;
  readonly #learn: number[] = [];
  #step = NaN;
  #gapSteps = 0;
  #gaps = 0;
  #backwards = 0;

  constructor(readonly names: string[], readonly intervalMs: number) {
    const w = (this.#width = names.length);
    this.#first = new Float64Array(w);
    this.#changed = new Uint8Array(w);
    this.#runValue = new Float64Array(w);
    this.#runLength = new Float64Array(w);
    this.#longest = new Float64Array(w);
    this.#timeAxis = names.findIndex((n) => TIME_AXIS.test(n.trim()));
  }

  push(row: ArrayLike<number>): void {
    const w = this.#width;
    if (this.rows === 0) {
      for (let a = 0; a < w; a++) (this.#first[a] = row[a]!), (this.#runValue[a] = row[a]!), (this.#runLength[a] = 1), (this.#longest[a] = 1);
    } else {
      for (let a = 0; a < w; a++) {
        const v = row[a]!;
        if (v === this.#runValue[a]) {
          const n = ++this.#runLength[a]!;
          if (n > this.#longest[a]!) this.#longest[a] = n;
        } else {
          this.#changed[a] = 1;
          this.#runValue[a] = v;
          this.#runLength[a] = 1;
        }
      }
    }
    if (this.#timeAxis >= 0) this.#time(row[this.#timeAxis]!);
    this.rows++;
  }

  #time(t: number): void {
    const prev = this.#prevTime;
    this.#prevTime = t;
    if (Number.isNaN(prev)) return;
    const d = t - prev;
    if (Number.isNaN(this.#step)) {
      this.#learn.push(d);
      if (this.#learn.length < LEARN_STEPS) return;
      this.#settle();
      return;
    }
    this.#judge(d);
  }

  /** The usual step is the median of the first steps; those steps are then judged like the rest. */
  #settle(): void {
    const sorted = [...this.#learn].sort((a, b) => a - b);
    this.#step = sorted[Math.floor(sorted.length / 2)]!;
    for (const d of this.#learn.splice(0)) this.#judge(d);
  }

  #judge(d: number): void {
    if (d < 0) this.#backwards++;
    else if (this.#step > 0 && d > 1.5 * this.#step) {
      this.#gaps++;
      this.#gapSteps += Math.round(d / this.#step) - 1;
    }
  }

  findings(): QualityFinding[] {
    if (Number.isNaN(this.#step) && this.#learn.length >= 8) this.#settle(); // short samples: judge what there is
    const out: QualityFinding[] = [];
    if (this.rows >= 2) out.push(...this.#flat());
    if (this.#gaps > 0) {
      const fraction = this.#gapSteps / (this.rows + this.#gapSteps);
      out.push(finding('timestamp-gaps', fraction > LOST_ERROR_FRACTION ? 'error' : 'warning',
        `Gaps: the "${this.names[this.#timeAxis]}" column jumps ${this.#gaps} time${this.#gaps === 1 ? '' : 's'}, about ${this.#gapSteps} reading${this.#gapSteps === 1 ? '' : 's'} (${percent(fraction)}) are missing. ` +
        'Check that the board does not block between readings and that the link keeps up, then record again.'));
    }
    if (this.#backwards > 0) {
      out.push(finding('timestamp-gaps', 'warning',
        `The "${this.names[this.#timeAxis]}" column goes backwards ${this.#backwards} time${this.#backwards === 1 ? '' : 's'} (a board reset or a counter overflow). Check the board's clock, or crop the sample there.`));
    }
    return out;
  }

  #flat(): QualityFinding[] {
    const out: QualityFinding[] = [];
    const axes = this.names.map((_, a) => a).filter((a) => a !== this.#timeAxis);
    const flat = axes.filter((a) => !this.#changed[a]);
    if (flat.length > 0) {
      const all = flat.length === axes.length;
      const list = flat.map((a) => `"${this.names[a]}" (always ${this.#first[a]})`).join(', ');
      out.push(finding('flat-axis', all ? 'error' : 'warning', all
        ? `Flat line: every axis holds one value for the whole sample (${list}). The sensor is not sending real readings; check its wiring and initialisation, then record again.`
        : `Flat line: ${list} never changes in this sample. If that axis should move, check the sensor's wiring or driver; otherwise leave it out of the sketch.`));
    }
    const stretchRows = Math.max(FLAT_STRETCH_MIN_ROWS, Math.ceil(FLAT_STRETCH_MS / this.intervalMs));
    const stuck = axes.filter((a) => this.#changed[a] && this.#longest[a]! >= stretchRows);
    if (stuck.length > 0) {
      const list = stuck.map((a) => `"${this.names[a]}" for ${formatMs(this.#longest[a]! * this.intervalMs)}`).join(', ');
      out.push(finding('flat-stretch', 'warning',
        `Flat stretch: ${list} repeats one exact value. A sensor that stops updating (a stuck reading, a lost I2C connection) looks like this; check it, or crop that part.`));
    }
    return out;
  }
}
