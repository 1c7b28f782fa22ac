/**
 * "Catch mode": a person says "I am doing LABEL now" while the model classifies the live stream;
 * stretches where the model disagrees or is unsure become samples worth saving (and labelling
 * LABEL), because those are exactly what the model still gets wrong.
 *
 * Why spans and not windows: windows overlap and misses come in runs, so each missed window is
 * widened by a margin (to keep some context on each side) and runs that touch are merged into one
 * span, i.e. one saved sample. A per-minute cap keeps a model that is wrong all the time from
 * filling the disk with near-identical samples; what it refuses is counted, not silently lost.
 *
 * Everything is in stream time (ms), fed in order, with no clock of its own, so it is exact to test.
 */

export interface Verdict {
  index: number;
  startMs: number;
  endMs: number;
  /** The model's top label, or null when it gave none. */
  label: string | null;
  /** The top label's score, or null when there is none. */
  confidence: number | null;
}

export interface CatchRules {
  /** The label the person says they are doing. */
  expected: string;
  /**
   * True when `expected` is background ('noise', 'unknown' or marked so): then only windows where
   * the model is sure of ANOTHER label are misses; being unsure about background is fine.
   */
  background: boolean;
  /** Confidence below this is "unsure". */
  threshold: number;
  /** Added on each side of a missed window (500 is a good default). */
  marginMs: number;
}

export type MissReason = 'other-label' | 'uncertain';

export interface CaughtSpan {
  startMs: number;
  endMs: number;
  /** Missed windows merged into this span. */
  windows: number;
  /** Top labels of the missed windows, by count (most first); unsure windows count under their top label too. */
  said: Record<string, number>;
  /** How many of the missed windows were unsure (rather than sure of another label). */
  uncertain: number;
  /** The most confident other-label window (first one on ties); failing that, the least confident unsure one. */
  worst: { label: string | null; confidence: number | null };
  /** Plain words, e.g. "the model said idle (3 windows, lowest 0.61) and was unsure twice". */
  note: string;
}

export interface CatchCounts {
  /** Spans handed out (closed or flushed); refused spans are in `capped` instead. */
  caught: number;
  /** Caught spans by reason: 'other-label' when any window in it was sure of another label, else 'uncertain'. */
  byReason: Record<MissReason, number>;
  /** Caught other-label spans by the label the model said most in them. */
  said: Record<string, number>;
}

/** Labels that usually mean "nothing in particular", for callers choosing `CatchRules.background`. */
export function isBackgroundLabel(label: string): boolean {
  const l = label.trim().toLowerCase();
  return l === 'noise' || l === 'unknown' || l === 'background';
}

/** Why this verdict is a miss under the rules, or null when the model agreed (or may be unsure about background). */
export function isMiss(v: Verdict, r: CatchRules): MissReason | null {
  const sure = v.label !== null && v.confidence !== null && v.confidence >= r.threshold;
  if (sure) return v.label === r.expected ? null : 'other-label';
  return r.background ? null : 'uncertain';
}

interface OpenSpan {
  startMs: number;
  endMs: number;
  refused: boolean;
  misses: { label: string | null; confidence: number | null; reason: MissReason }[];
}

export class SpanCatcher {
  readonly #rules: CatchRules;
  readonly #cap: number;
  readonly #clampStartMs: number;
  readonly #maxSpanMs: number;
  #open: OpenSpan | null = null;
  /** Start times of accepted spans in the last minute of stream time (oldest first), for the cap. */
  #recentStarts: number[] = [];
  #capped = 0;
  #counts: CatchCounts = { caught: 0, byReason: { 'other-label': 0, uncertain: 0 }, said: {} };

  /**
   * perMinuteCap: most spans that may start within any 60 s of stream time (Infinity for no cap).
   * maxSpanMs: a span that would grow longer is closed and the misses go on in a new one right after
   * it (default 10 s): a model wrong for minutes yields samples of a useful size, and the keeper's
   * ring of recent rows (catch-keeper.ts) always still holds a span's start when it closes.
   */
  constructor(r: CatchRules, opts: { perMinuteCap: number; clampStartMs?: number; maxSpanMs?: number }) {
    if (!(opts.perMinuteCap >= 0)) throw new RangeError(`SpanCatcher: perMinuteCap must be >= 0; got ${opts.perMinuteCap}`);
    if (!(r.marginMs >= 0)) throw new RangeError(`SpanCatcher: marginMs must be >= 0; got ${r.marginMs}`);
    this.#rules = { ...r };
    this.#cap = opts.perMinuteCap;
    this.#clampStartMs = opts.clampStartMs ?? 0;
    this.#maxSpanMs = opts.maxSpanMs ?? 10_000;
  }

  /** Spans refused because the per-minute cap was reached (each refused span counts once). */
  get capped(): number {
    return this.#capped;
  }

  get counts(): CatchCounts {
    const c = this.#counts;
    return { caught: c.caught, byReason: { ...c.byReason }, said: { ...c.said } };
  }

  /**
   * Feed verdicts in stream order. Returns the spans that can no longer grow: a span closes once a
   * verdict starts more than a margin after its end, since no later miss could then touch it.
   */
  push(v: Verdict): CaughtSpan[] {
    const out: CaughtSpan[] = [];
    const margin = this.#rules.marginMs;
    if (this.#open && v.startMs - margin > this.#open.endMs) this.#close(out);

    const reason = isMiss(v, this.#rules);
    if (reason === null) return out;
    const startMs = Math.max(this.#clampStartMs, v.startMs - margin);
    const endMs = v.endMs + margin;
    if (endMs <= startMs) return out; // the whole window lies before the clamp: nothing to save
    const miss = { label: v.label, confidence: v.confidence, reason };

    let from = startMs;
    if (this.#open && endMs - this.#open.startMs > this.#maxSpanMs) {
      // Too long: this part is closed, and the misses go on in a span starting where it ended.
      from = Math.max(startMs, this.#open.endMs);
      this.#close(out);
    }
    if (this.#open) {
      // Still open here means it overlaps or touches this miss (start - margin <= its end).
      this.#open.endMs = Math.max(this.#open.endMs, endMs);
      this.#open.misses.push(miss);
      return out;
    }
    while (this.#recentStarts.length > 0 && this.#recentStarts[0]! <= from - 60_000) this.#recentStarts.shift();
    const refused = this.#recentStarts.length >= this.#cap;
    // A refused span still stays "open" so the misses touching it are refused with it, counted once.
    if (refused) this.#capped++;
    else this.#recentStarts.push(from);
    this.#open = { startMs: from, endMs, refused, misses: [miss] };
    return out;
  }

  /** At the end of the stream: the open span, if any. */
  flush(): CaughtSpan[] {
    const out: CaughtSpan[] = [];
    if (this.#open) this.#close(out);
    return out;
  }

  /** E.g. "caught 7: 5 said idle, 2 uncertain". */
  summary(): string {
    const c = this.#counts;
    const parts = Object.entries(c.said)
      .sort((a, b) => b[1] - a[1])
      .map(([label, n]) => `${n} said ${label}`);
    if (c.byReason.uncertain > 0) parts.push(`${c.byReason.uncertain} uncertain`);
    let s = c.caught === 0 ? 'caught nothing' : `caught ${c.caught}: ${parts.join(', ')}`;
    if (this.#capped > 0) s += `; ${this.#capped} more skipped (over ${this.#cap} a minute)`;
    return s;
  }

  #close(out: CaughtSpan[]): void {
    const open = this.#open!;
    this.#open = null;
    if (open.refused) return;
    const span = describe(open);
    out.push(span);
    const c = this.#counts;
    c.caught++;
    const top = topOtherLabel(open);
    if (top === null) c.byReason.uncertain++;
    else {
      c.byReason['other-label']++;
      c.said[top] = (c.said[top] ?? 0) + 1;
    }
  }
}

function describe(open: OpenSpan): CaughtSpan {
  const said: Record<string, number> = {};
  for (const m of open.misses) if (m.label !== null) said[m.label] = (said[m.label] ?? 0) + 1;
  const sortedSaid = Object.fromEntries(Object.entries(said).sort((a, b) => b[1] - a[1]));
  const others = open.misses.filter((m) => m.reason === 'other-label');
  const unsure = open.misses.filter((m) => m.reason === 'uncertain');

  let worst: CaughtSpan['worst'];
  if (others.length > 0) {
    let best = others[0]!;
    for (const m of others) if ((m.confidence ?? 0) > (best.confidence ?? 0)) best = m;
    worst = { label: best.label, confidence: best.confidence };
  } else {
    let least = unsure[0]!;
    for (const m of unsure) if ((m.confidence ?? -1) < (least.confidence ?? -1)) least = m;
    worst = { label: least.label, confidence: least.confidence };
  }
  return {
    startMs: open.startMs,
    endMs: open.endMs,
    windows: open.misses.length,
    said: sortedSaid,
    uncertain: unsure.length,
    worst,
    note: noteFor(others, unsure),
  };
}

/** The label the model was sure of most often in the span (ties: the first said), or null if only unsure. */
function topOtherLabel(open: OpenSpan): string | null {
  const n = new Map<string, number>();
  for (const m of open.misses) if (m.reason === 'other-label' && m.label !== null) n.set(m.label, (n.get(m.label) ?? 0) + 1);
  let top: string | null = null;
  for (const [label, k] of n) if (top === null || k > n.get(top)!) top = label;
  return top;
}

const conf = (c: number | null): string => (c === null ? 'no score' : c.toFixed(2));
const times = (n: number): string => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

/**
 * "the model said idle, 0.61" · "the model said idle (3 windows, lowest 0.61) and was unsure twice" ·
 * "the model said idle (0.70) and wave (2 windows, lowest 0.81)" · "the model was unsure (idle, 0.42)".
 */
function noteFor(others: OpenSpan['misses'], unsure: OpenSpan['misses']): string {
  const byLabel = new Map<string, number[]>();
  for (const m of others) {
    const list = byLabel.get(m.label!) ?? [];
    list.push(m.confidence!);
    byLabel.set(m.label!, list);
  }
  const groups = [...byLabel].sort((a, b) => b[1].length - a[1].length);
  const group = ([label, cs]: [string, number[]], alone: boolean): string =>
    cs.length === 1
      ? alone ? `${label}, ${conf(cs[0]!)}` : `${label} (${conf(cs[0]!)})`
      : `${label} (${cs.length} windows, lowest ${conf(Math.min(...cs))})`;

  if (groups.length === 0) {
    if (unsure.length === 1) {
      const u = unsure[0]!;
      return u.label === null ? 'the model gave no answer' : `the model was unsure (${u.label}, ${conf(u.confidence)})`;
    }
    return `the model was unsure ${times(unsure.length)}`;
  }
  const alone = groups.length === 1 && unsure.length === 0;
  const said = groups.map((g) => group(g, alone));
  // One "and" per sentence: the unsure part takes it when there is one.
  if (unsure.length > 0) return `the model said ${said.join(', ')} and was unsure ${times(unsure.length)}`;
  const list = said.length === 1 ? said[0]! : `${said.slice(0, -1).join(', ')} and ${said[said.length - 1]!}`;
  return `the model said ${list}`;
}
