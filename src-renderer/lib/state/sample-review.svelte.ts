import type { Sample, SampleEnvelope, SampleOverview } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import { clampView, panView, revealView, zoomView, type ViewWindow } from '../review/plot-data.js';

/**
 * What the sample view shows: the overview (first paint), then the zoomed window fetched at the
 * plot's width, the selection in ms and the playhead. Zoom and pan change `view` at once and
 * fetch the matching rows; an answer for an older view is dropped.
 */
export class SampleReview {
  overview = $state.raw<SampleOverview | null>(null);
  envelope = $state.raw<SampleEnvelope | null>(null);
  view = $state.raw<ViewWindow>({ startMs: 0, endMs: 0 });
  selection = $state.raw<ViewWindow | null>(null);
  error = $state<string | null>(null);
  loading = $state(true);
  #width = 800;
  #asked = 0;

  constructor(private readonly api: Api, readonly sample: Sample) {}

  get lengthMs(): number {
    return this.overview?.lengthMs ?? 0;
  }

  /** The shortest window worth zooming to: a handful of rows. */
  get minSpanMs(): number {
    return Math.min(this.lengthMs, (this.overview?.intervalMs ?? 1) * 8);
  }

  async load(width: number): Promise<void> {
    this.#width = Math.max(100, Math.round(width));
    this.loading = true;
    this.error = null;
    try {
      const o = await this.api.call('samples.overview', { id: this.sample.id, width: this.#width });
      this.overview = o;
      this.envelope = o.envelope;
      this.view = { startMs: 0, endMs: o.lengthMs };
    } catch (err) {
      this.error = errorText(err);
    } finally {
      this.loading = false;
    }
  }

  zoom(factor: number, atMs?: number): void {
    const v = this.view;
    this.#show(zoomView(v, factor, atMs ?? (v.startMs + v.endMs) / 2, this.lengthMs, this.minSpanMs));
  }

  pan(fraction: number): void {
    this.#show(panView(this.view, fraction, this.lengthMs, this.minSpanMs));
  }

  /** Pans, zoom kept, until `w` is in view (a window focused or moved from the keyboard). */
  reveal(w: ViewWindow): void {
    const next = revealView(this.view, w, this.lengthMs, this.minSpanMs);
    if (next) this.#show(next);
  }

  reset(): void {
    this.#show({ startMs: 0, endMs: this.lengthMs });
  }

  /** Sets the selection, kept inside the sample; null clears it. */
  select(sel: ViewWindow | null): void {
    if (!sel) return void (this.selection = null);
    const a = Math.max(0, Math.min(sel.startMs, sel.endMs));
    const b = Math.min(this.lengthMs, Math.max(sel.startMs, sel.endMs));
    this.selection = b > a ? { startMs: a, endMs: b } : null;
  }

  /** Shift+arrows: grow or shrink the selection's end by a step of the view (starting at the view's middle). */
  nudgeSelection(direction: -1 | 1): void {
    const v = this.view;
    const step = (v.endMs - v.startMs) / 50;
    const s = this.selection ?? { startMs: (v.startMs + v.endMs) / 2, endMs: (v.startMs + v.endMs) / 2 };
    this.select({ startMs: s.startMs, endMs: Math.max(s.startMs + step, s.endMs + direction * step) });
  }

  #show(v: ViewWindow): void {
    const next = clampView(v, this.lengthMs, this.minSpanMs);
    this.view = next;
    const asked = ++this.#asked;
    void this.api
      .call('samples.range', { id: this.sample.id, startMs: next.startMs, endMs: next.endMs, width: this.#width })
      .then((e) => {
        if (asked === this.#asked) this.envelope = e;
      })
      .catch((err) => {
        if (asked === this.#asked) this.error = errorText(err);
      });
  }
}
