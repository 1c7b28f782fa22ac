import { CoreError } from '../errors.js';
import type { WindowResult } from './model-runner.js';
import type { ModelVerdict, ModelEntry } from '../contract/model-schema.js';
import type { ModelSession } from './model-session.js';
import { Windower } from './windower.js';

/** Rows of a live source as the model sees them: every row at full precision, interleaved. */
export interface LiveRows {
  /** What the person calls the source (for sentences). */
  name: string;
  axisNames: string[];
  rateHz: number;
  /** true: one channel of int16-scale samples (a microphone). */
  audio: boolean;
  /**
   * `at`: the stream's row index of the first of these rows, counted from the source's first
   * reading (StreamHub's RowTap); a source that does not count its rows leaves it out, and its
   * times then count from the first row the model was given.
   */
  subscribe(onRows: (values: ArrayLike<number>, rows: number, at?: number) => void, onEnd: (err: unknown) => void): () => void;
}

/** Carried with each window to the worker and back. */
export interface WindowMeta {
  index: number;
  startMs: number;
  endMs: number;
  handedAt: number;
}

export interface LiveFit {
  resampling: boolean;
  continuous: boolean;
  strideMs: number;
  /** Said once, in words: axes mapped in order, resampled, continuous mode. */
  notes: string[];
}

const RATE_TOLERANCE = 0.01;
const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

/**
 * Does this model fit this source? Axis counts must be equal (names may differ: mapped in order and
 * said); rates within 1 % are taken as equal, others resampled (said). Misfits are refused with the numbers.
 */
export function checkFit(entry: ModelEntry, rows: Pick<LiveRows, 'name' | 'axisNames' | 'rateHz' | 'audio'>, strideMs: number | null): LiveFit {
  const d = entry.description;
  const notes: string[] = [];
  if (d.axes === null) {
    throw new CoreError('InvalidArguments', `Model "${entry.name}" does not say how many axes it takes (a build from before 2022). Say it once: "capture-desk model set-axes ${entry.name} --axes N", or answer in Settings → Models; ${rows.name} has ${rows.axisNames.length}.`);
  }
  if (d.sensor === 'microphone' && !rows.audio) notes.push(`Model "${entry.name}" was trained on a microphone; ${rows.name} is not one.`);
  if (d.axes !== rows.axisNames.length) {
    throw new CoreError('InvalidArguments', `Model "${entry.name}" takes ${d.axes} ${d.axes === 1 ? 'axis' : 'axes'}; ${rows.name} gives ${rows.axisNames.length} (${rows.axisNames.join(', ')}). Choose a source with ${d.axes} ${d.axes === 1 ? 'axis' : 'axes'}, or another model.`);
  }
  if (!rows.audio && rows.axisNames.length > 1) notes.push(`The source's axes go to the model in order: ${rows.axisNames.map((a, i) => `${a} → model axis ${i + 1}`).join(', ')}.`);
  const ratio = rows.rateHz / d.frequencyHz;
  const resampling = Math.abs(ratio - 1) > RATE_TOLERANCE + 1e-9;
  if (resampling) {
    if (rows.rateHz < d.frequencyHz / 4) {
      throw new CoreError('InvalidArguments', `${rows.name} gives ${round(rows.rateHz, 2)} Hz; model "${entry.name}" needs ${d.frequencyHz} Hz, more than 4 times faster: resampling cannot make up what was never measured. Set the board to ${d.frequencyHz} Hz.`);
    }
    notes.push(`${rows.name} runs at ${round(rows.rateHz, 2)} Hz and the model at ${d.frequencyHz} Hz: the stream is resampled to ${d.frequencyHz} Hz for the model (the take keeps the board's own rows).`);
  }
  const continuous = rows.audio && d.continuous && d.sliceFloats !== null && (strideMs === null || Math.abs(strideMs - sliceMs(entry)) < 0.5);
  const stride = continuous ? sliceMs(entry) : (strideMs ?? d.windowMs / 4);
  if (!(stride > 0) || stride > d.windowMs * 10) throw new CoreError('InvalidArguments', `A stride of ${stride} ms does not fit windows of ${d.windowMs} ms; give 1 to ${d.windowMs * 10} ms.`);
  if (continuous) notes.push(`Continuous mode: the model hears every slice of ${round(sliceMs(entry), 1)} ms in order.`);
  return { resampling, continuous, strideMs: stride, notes };
}

/**
 * Before a bulk run: the model's own problems (a stride that does not fit it) said once, against a
 * source just like the model's own. Axes never given are left to the caller, which says them its way.
 */
export function checkModelAlone(entry: ModelEntry, strideMs: number | null): void {
  const d = entry.description;
  if (d.axes === null) return;
  checkFit(entry, { name: 'a source like its own', axisNames: Array.from({ length: d.axes }, (_, i) => `axis ${i + 1}`), rateHz: d.frequencyHz, audio: d.sensor === 'microphone' }, strideMs);
}

function sliceMs(entry: ModelEntry): number {
  const d = entry.description;
  return ((d.sliceFloats ?? 0) / (d.axes ?? 1) / d.frequencyHz) * 1000;
}

/** Turns one result into a verdict: top label, every score, below the threshold = uncertain. */
export function toVerdict(r: WindowResult, m: Omit<WindowMeta, 'handedAt'>, threshold: number, hasAnomaly: boolean): ModelVerdict {
  let label: string | null = null;
  let confidence: number | null = null;
  const scores: Record<string, number> = {};
  for (const [l, v] of r.scores) {
    scores[l] = v;
    if (confidence === null || v > confidence) {
      label = l;
      confidence = v;
    }
  }
  return {
    index: m.index,
    startMs: round(m.startMs),
    endMs: round(m.endMs),
    label,
    confidence,
    scores,
    anomaly: hasAnomaly ? r.anomaly : null,
    uncertain: confidence === null || confidence < threshold,
    classifyMs: round(r.ms, 4),
  };
}

export interface LiveModelEvents {
  verdict(v: ModelVerdict, latencyMs: number): void;
  /** The module returned an error code for a window (e.g. -5: its signal processing failed). */
  windowError?(index: number, code: number): void;
  restarted?(reason: string): void;
  failed?(reason: string): void;
  /** The source ended (unplugged, failed). */
  ended?(err: unknown): void;
  /** Every source row, after it was cut into windows (catch mode keeps them); `at` as in LiveRows.subscribe, always given. */
  rows?(values: ArrayLike<number>, rows: number, at: number): void;
}

/**
 * A model on a live source: the source's rows are cut into windows (resampled when the rates
 * differ) and handed to the model's worker with back-pressure; each result comes back as a
 * verdict on the stream's time axis. Nothing here waits for the model: the source's rows are
 * never held up by it.
 */
export class LiveModel {
  readonly fit: LiveFit;
  readonly #windower: Windower;
  readonly #untap: () => void;
  readonly windowMs: number;
  /**
   * The stream's row index of the first row the model got (null until it came) and the rows since.
   * A model starts after its source (a measured rate is waited for, the view ran for minutes):
   * verdicts count from the stream's first reading, not from the model's start.
   */
  #firstRow: number | null = null;
  #rowsSeen = 0;
  #stopped = false;
  windows = 0;
  errors = 0;
  readonly byLabel: Record<string, number> = {};
  readonly classifyMs: number[] = [];

  constructor(
    readonly session: ModelSession<WindowMeta>,
    readonly source: LiveRows,
    o: { strideMs: number | null; threshold: number },
    private readonly events: LiveModelEvents,
  ) {
    const entry = session.entry;
    const d = entry.description;
    this.fit = checkFit(entry, source, o.strideMs);
    this.windowMs = d.windowMs;
    const axes = d.axes!;
    const windowRows = this.fit.continuous ? d.sliceFloats! / axes : d.frameSampleCount;
    // Fractional on purpose: 500 ms at 62.5 Hz is 31.25 rows, and 31 would make every stride 496 ms.
    const strideRows = Math.max(1, (this.fit.strideMs / 1000) * d.frequencyHz);
    this.#windower = new Windower({ axes, windowRows, strideRows: this.fit.continuous ? windowRows : strideRows, sourceHz: source.rateHz, modelHz: d.frequencyHz });
    session.on({
      result: (r, meta) => {
        if (this.#stopped) return;
        if (r.refilling) return; // continuous mode still holds slices from before a skip (or the start's zeros)
        if (r.code !== 0) {
          this.errors++;
          events.windowError?.(meta.index, r.code);
          return;
        }
        const v = toVerdict(r, meta, o.threshold, d.hasAnomaly);
        this.windows++;
        if (v.label !== null) this.byLabel[v.label] = (this.byLabel[v.label] ?? 0) + 1;
        if (this.classifyMs.length < 200_000) this.classifyMs.push(r.ms);
        events.verdict(v, performance.now() - meta.handedAt);
      },
      restarted: (reason) => events.restarted?.(reason),
      failed: (reason) => events.failed?.(reason),
    });
    this.#untap = source.subscribe(
      (values, rows, at) => this.#rows(values, rows, at),
      (err) => events.ended?.(err),
    );
  }

  #rows(values: ArrayLike<number>, rows: number, at?: number): void {
    if (this.#stopped) return;
    this.#firstRow ??= at ?? 0;
    const now = performance.now();
    // The windower counts from the model's first row; the rows before it are on the stream's axis too.
    const sinceMs = (this.#firstRow / this.source.rateHz) * 1000;
    for (const w of this.#windower.push(values, rows)) {
      const endMs = sinceMs + w.endMs;
      // A verdict speaks for the model's whole window (continuous mode too: the module holds it);
      // slices before a whole window has gone by would start before the stream: said from 0.
      this.session.offer(w.values, { index: w.index, startMs: Math.max(0, endMs - this.windowMs), endMs, handedAt: now });
    }
    this.events.rows?.(values, rows, this.#firstRow + this.#rowsSeen);
    this.#rowsSeen += rows;
  }

  get skipped(): number {
    return this.session.skipped;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#untap();
  }
}

/** p-th percentile (0..100) of a list (sorted copy). */
export function percentile(values: readonly number[], p: number): number | null {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
