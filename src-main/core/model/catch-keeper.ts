import type { Sample } from '../contract/contract.js';
import { SpanCatcher, type CatchRules, type CaughtSpan } from './catch-spans.js';
import type { ModelVerdict } from '../contract/model-schema.js';

/** How much the ring holds beyond a window and both margins: room for a model that lags behind. */
const SLACK_MS = 20_000;

/**
 * Catch mode on a live source: every source row goes into a ring long enough for a window, both
 * margins and a model lagging behind; verdicts go to a SpanCatcher; each span it closes is cut
 * from the ring (the board's own rows for that span, never resampled ones) and saved, one at a
 * time and in order, by `save`.
 */
export class CatchKeeper {
  readonly catcher: SpanCatcher;
  readonly #ring: Float64Array;
  readonly #capacity: number;
  readonly #axes: number;
  /** Rows on the stream's axis: the first row kept (null until rows came) and the index just past the last. */
  #first: number | null = null;
  #total = 0;
  #saving: Promise<void> = Promise.resolve();
  readonly saved: Sample[] = [];
  readonly failures: string[] = [];
  /** Rows a span wanted that had already left the ring (the model lagged more than the slack). */
  rowsGone = 0;

  constructor(
    rules: CatchRules,
    o: { perMinuteCap: number; axes: number; rateHz: number; windowMs: number },
    private readonly save: (span: CaughtSpan, values: Float64Array, rows: number, firstRow: number) => Promise<Sample>,
    private readonly events: { caught?(span: CaughtSpan, sample: Sample): void; failed?(span: CaughtSpan, err: unknown): void } = {},
  ) {
    this.catcher = new SpanCatcher(rules, { perMinuteCap: o.perMinuteCap });
    this.#axes = o.axes;
    this.#rateHz = o.rateHz;
    this.#capacity = Math.ceil(((o.windowMs + 2 * rules.marginMs + SLACK_MS) / 1000) * o.rateHz) + 1;
    this.#ring = new Float64Array(this.#capacity * o.axes);
  }

  readonly #rateHz: number;

  /** `at`: the stream's row index of the first of these rows (spans are on the stream's axis); default: right after the last. */
  rows(values: ArrayLike<number>, rows: number, at?: number): void {
    if (this.#first === null) this.#first = this.#total = at ?? 0;
    const a = this.#axes;
    for (let r = 0; r < rows; r++) {
      const slot = ((this.#total + r) % this.#capacity) * a;
      for (let k = 0; k < a; k++) this.#ring[slot + k] = values[r * a + k]!;
    }
    this.#total += rows;
  }

  verdict(v: ModelVerdict): void {
    for (const span of this.catcher.push(v)) this.#keep(span);
  }

  /** At the end of the stream: the open span is saved too. Resolves when every save is done. */
  async flush(): Promise<void> {
    for (const span of this.catcher.flush()) this.#keep(span);
    await this.#saving;
  }

  summary(): string {
    return this.catcher.summary();
  }

  #keep(span: CaughtSpan): void {
    const kept = this.#first ?? 0;
    let first = Math.round((span.startMs / 1000) * this.#rateHz);
    if (first < kept) {
      // A margin reaching back before the model's first row (it started after the stream): the
      // sample starts where the rows do, and its start_ms says so, so the two agree.
      first = kept;
      span = { ...span, startMs: Math.round((kept / this.#rateHz) * 1e6) / 1e3 };
    }
    const end = Math.min(this.#total, Math.round((span.endMs / 1000) * this.#rateHz));
    const oldest = Math.max(kept, this.#total - this.#capacity);
    const from = Math.max(first, oldest);
    this.rowsGone += from - first;
    // Only a model lagging far behind the stream gets here: the sample is what is left, and says so.
    if (from > first) span = { ...span, note: `${span.note}; its first ${from - first} rows had already left memory (the model was ${Math.round(((this.#total - first) / this.#rateHz))} s behind)` };
    const count = Math.max(0, end - from);
    const out = new Float64Array(count * this.#axes);
    for (let r = 0; r < count; r++) {
      const at = ((from + r) % this.#capacity) * this.#axes;
      out.set(this.#ring.subarray(at, at + this.#axes), r * this.#axes);
    }
    this.#saving = this.#saving.then(async () => {
      try {
        const sample = await this.save(span, out, count, from);
        this.saved.push(sample);
        this.events.caught?.(span, sample);
      } catch (err) {
        this.failures.push(err instanceof Error ? err.message : String(err));
        this.events.failed?.(span, err);
      }
    });
  }
}
