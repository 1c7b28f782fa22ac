import type { ModelVerdict } from '../../../src-main/core/contract/contract.js';

/** One window as the live view shows it: what the model said, and what is shown after threshold and smoothing. */
export interface LiveWindow {
  index: number;
  startMs: number;
  endMs: number;
  /** The model's top label and its score (null: the model gave no labels). */
  top: string | null;
  confidence: number | null;
  scores: Record<string, number>;
  /** This window alone: top score below the threshold. */
  uncertain: boolean;
  /** After smoothing (the majority of the last k windows): a label, or null for "uncertain". */
  shown: string | null;
  /** Mean confidence of the windows that voted for `shown` (for uncertain: theirs). */
  shownConfidence: number | null;
}

/** A window's vote: its top label, or null when it is uncertain. */
export const voteOf = (w: Pick<LiveWindow, 'top' | 'uncertain'>): string | null => (w.uncertain ? null : w.top);

export function isUncertain(v: Pick<ModelVerdict, 'confidence' | 'label'>, threshold: number): boolean {
  return v.label === null || v.confidence === null || v.confidence < threshold;
}

/**
 * The majority of the votes (null = uncertain counts as a vote of its own); a tie goes to the most
 * recent of the tied votes, so smoothing follows a change as soon as it has as many votes.
 */
export function majority(votes: ReadonlyArray<string | null>): string | null {
  const counts = new Map<string | null, number>();
  for (const v of votes) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | null = null;
  let bestCount = -1;
  let bestLast = -1;
  for (const [v, c] of counts) {
    const last = votes.lastIndexOf(v);
    if (c > bestCount || (c === bestCount && last > bestLast)) {
      best = v;
      bestCount = c;
      bestLast = last;
    }
  }
  return best;
}

/**
 * The window at the end of `recent` (oldest first, at most k long, the window itself last) as
 * shown: the majority vote of them, with their mean confidence. k = 1 is no smoothing.
 */
export function smoothed(recent: ReadonlyArray<Pick<LiveWindow, 'top' | 'uncertain' | 'confidence'>>): { shown: string | null; shownConfidence: number | null } {
  const votes = recent.map(voteOf);
  const shown = recent.length === 1 ? votes[0]! : majority(votes);
  const conf = recent.filter((w, i) => votes[i] === shown && w.confidence !== null).map((w) => w.confidence!);
  return { shown, shownConfidence: conf.length ? conf.reduce((a, b) => a + b, 0) / conf.length : null };
}

/** Mean of every label's score over the windows (the bars under the plot). Labels in the model's order. */
export function meanScores(labels: readonly string[], windows: ReadonlyArray<Pick<LiveWindow, 'scores'>>): Array<{ label: string; value: number }> {
  return labels.map((label) => {
    let sum = 0;
    for (const w of windows) sum += w.scores[label] ?? 0;
    return { label, value: windows.length ? sum / windows.length : 0 };
  });
}

/** What screen readers hear when the shown label changes. */
export function announceText(shown: string | null): string {
  return shown === null ? 'Model: uncertain' : `Model: ${shown}`;
}
