import type { StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';

/** An event as the UI shows it while recording: times from the start of the session. */
export interface MarkedEvent {
  label: string;
  startMs: number;
  /** null while the event is still open. */
  endMs: number | null;
}

interface Mark {
  label: string;
  startMs: number;
  endMs: number | null;
  /** Row index in each source of the session where the event started / ended (exclusive). */
  start: number[];
  end: number[] | null;
}

/** A person marking events by key press cannot have a thousand of them in one capture. */
export const MAX_EVENTS_PER_RECORDING = 1000;

/**
 * Events marked live while a session records (number keys in the UI). A session records several
 * sources at their own rates, so every mark keeps the row position of each source at the moment
 * of the key press; each source's sample then gets structured labels in its own row indices.
 * At most one event is open at a time: the platform's structured labels are consecutive,
 * non-overlapping ranges, so starting an event ends the open one.
 */
export class EventMarks {
  readonly #marks: Mark[] = [];

  constructor(private readonly sourceCount: number) {}

  /** Starts an event (ending the open one) or, with label null, ends the open one. */
  mark(label: string | null, atMs: number, positions: number[]): void {
    if (positions.length !== this.sourceCount) throw new Error(`expected ${this.sourceCount} positions, got ${positions.length}`);
    const open = this.#open();
    if (open) {
      open.endMs = atMs;
      open.end = [...positions];
    }
    if (label === null) {
      if (!open) throw new CoreError('InvalidArguments', 'No event is open to end; press an event key first to start one.');
      return;
    }
    if (this.#marks.length >= MAX_EVENTS_PER_RECORDING) {
      throw new CoreError('InvalidArguments', `A recording holds at most ${MAX_EVENTS_PER_RECORDING} events; stop and start a new one.`);
    }
    this.#marks.push({ label, startMs: atMs, endMs: null, start: [...positions], end: null });
  }

  get events(): MarkedEvent[] {
    return this.#marks.map(({ label, startMs, endMs }) => ({ label, startMs, endMs }));
  }

  /**
   * The structured labels of source `index` whose capture holds `rows` rows. An event still open
   * at the end runs to the last row; empty events (no row between start and end) are dropped.
   * Stretches between events get `gapLabel`, because the platform expects structured labels to
   * cover the whole sample; without one (an unlabeled capture) they stay uncovered.
   *
   * `from`: the sample holds only the source's rows [from, rows) (one part of a take that a board
   * ended by restarting): its events are those rows' own, counted from its first row.
   */
  structuredLabels(index: number, rows: number, gapLabel: string | null, from = 0): StructuredLabel[] | null {
    if (rows <= from || this.#marks.length === 0) return null;
    const events: StructuredLabel[] = [];
    for (const m of this.#marks) {
      const start = Math.max(from, Math.min(m.start[index]!, rows));
      const end = Math.min(m.end ? m.end[index]! : rows, rows); // exclusive
      if (end > start) events.push({ startIndex: start - from, endIndex: end - 1 - from, label: m.label });
    }
    if (events.length === 0) return null;
    rows -= from;
    if (gapLabel === null) return events;
    const covered: StructuredLabel[] = [];
    let next = 0;
    for (const e of events) {
      if (e.startIndex > next) covered.push({ startIndex: next, endIndex: e.startIndex - 1, label: gapLabel });
      covered.push(e);
      next = e.endIndex + 1;
    }
    if (next < rows) covered.push({ startIndex: next, endIndex: rows - 1, label: gapLabel });
    return covered;
  }

  #open(): Mark | undefined {
    const last = this.#marks.at(-1);
    return last && last.end === null ? last : undefined;
  }
}
