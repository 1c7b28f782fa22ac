import type { Classification, ClassifiedBlock, ClassifiedWindow, ClassifyAfterUpload, ClassifyState, CollectSummary, ModelEntry, SampleOverview } from '../../../src-main/core/contract/contract.js';
import { formatCreated, plural } from '../format.js';

/** How a classification reads in the app. The summary line itself is the core's (`summary.text`). */

const s2 = (ms: number): string => (ms / 1000).toFixed(2);
const c2 = (x: number): string => x.toFixed(2);

/** "wave 0.91": the band's own caption. */
export function bandCaption(w: ClassifiedWindow): string {
  if (w.label === null || w.confidence === null) return 'no label';
  return `${w.label} ${c2(w.confidence)}`;
}

/** Every label's score, highest first: "wave 0.91, idle 0.05, shake 0.04". */
export function scoresText(w: ClassifiedWindow): string {
  return Object.entries(w.scores)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([l, v]) => `${l} ${c2(v)}`)
    .join(', ');
}

/**
 * What a window's band says when it takes focus (its accessible name) and on hover:
 * "Window 2 of 5, 0.50–1.50 s: wave, 0.91 confidence, uncertain (below 0.60), anomaly 0.32".
 * It holds the band's caption ("wave 0.91") as written, so the name says what the band shows.
 */
export function windowText(w: ClassifiedWindow, block: Pick<ClassifiedBlock, 'minimumConfidenceRating'>, count: number): string {
  const parts = [`Window ${w.index + 1} of ${count}, ${s2(w.startMs)}–${s2(w.endMs)} s: `];
  parts.push(w.label === null || w.confidence === null ? 'no label' : `${w.label}, ${c2(w.confidence)} confidence`);
  if (w.uncertain) parts.push(`, uncertain (below ${block.minimumConfidenceRating === null ? '?' : c2(block.minimumConfidenceRating)})`);
  if (w.anomaly !== null) parts.push(`, anomaly ${c2(w.anomaly)}`);
  return parts.join('');
}

/** "3 min ago", "just now", "2 h ago", "5 days ago". */
export function ago(thenMs: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - thenMs) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 36) return `${h} h ago`;
  return plural(Math.round(h / 24), 'day') + ' ago';
}

export function impulseText(impulseId: number | null): string {
  return impulseId === null ? 'default impulse' : `impulse ${impulseId}`;
}

/**
 * Where a result came from, in words: "the platform, impulse 2, int8" or "on this computer:
 * gestures" (the core's sourceText, which the digest carries as `source`).
 */
export function sourceWords(c: Pick<Classification, 'variant' | 'impulseId' | 'local'>): string {
  if (c.local) return `on this computer: ${c.local.model}`;
  return `the platform, ${impulseText(c.impulseId)}, ${c.variant}`;
}

/** When and by what a result was made: "Classified 14:02:31 (3 min ago) · the platform, default impulse, int8". */
export function madeText(c: Pick<Classification, 'classifiedAt' | 'variant' | 'impulseId' | 'alreadyInDatabase' | 'local'>, nowMs: number): string {
  const at = Date.parse(c.classifiedAt);
  const when = Number.isNaN(at) ? c.classifiedAt : `${formatCreated(c.classifiedAt)} (${ago(at, nowMs)})`;
  const threshold = c.local ? ` (uncertain below ${c.local.threshold})` : '';
  return `Classified ${when} · ${sourceWords(c)}${threshold}${c.alreadyInDatabase ? ' · already in the project\'s training data' : ''}`;
}

/**
 * Why an added model cannot classify this sample, in words, or null when it can (the core checks
 * again and has the last word): its files, its axes, the sample's axes, rate and length. The
 * rules are the core's (model/live-model.ts checkFit): axes must agree; rates may differ, as the
 * sample is resampled, but not by more than 4 times too slow.
 */
export function modelMisfit(m: Pick<ModelEntry, 'name' | 'status' | 'problem' | 'description'>, o: Pick<SampleOverview, 'axes' | 'intervalMs' | 'lengthMs' | 'kind'> | null): string | null {
  const d = m.description;
  if (m.status === 'missing' || m.status === 'changed') return m.problem ?? `its files are ${m.status}`;
  if (d.axes === null) return 'it does not say how many axes it takes: give them in Settings → Models';
  if (!o) return null;
  const n = o.axes.length;
  if (n !== d.axes) return `it takes ${plural(d.axes, 'axis', 'axes')}; this sample has ${n}${o.kind === 'audio' ? ' (audio)' : ''}`;
  const rateHz = 1000 / o.intervalMs;
  if (rateHz < d.frequencyHz / 4) return `it needs ${d.frequencyHz} Hz; this sample is at ${Math.round(rateHz * 100) / 100} Hz`;
  if (o.lengthMs + 1e-6 < d.windowMs) return `its window is ${s2(d.windowMs)} s; this sample is ${s2(o.lengthMs)} s long`;
  return null;
}

/** Seconds left until the next request, rounded up, never below 0. */
export function secondsLeft(untilMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((untilMs - nowMs) / 1000));
}

/**
 * A classification in progress, in words: asking, or waiting for the job the platform started
 * (with the countdown to the next look at its status). null when nothing is in progress.
 */
export function progressText(s: Pick<ClassifyState, 'state' | 'attempt'>, secondsToRetry: number | null): string | null {
  const attempt = s.attempt > 1 ? ` (request ${s.attempt})` : '';
  if (s.state === 'classifying') return `Asking the platform to classify it…${attempt}`;
  if (s.state === 'waiting') return `Waiting for the platform's classification job; looking at it again in ${secondsToRetry ?? '?'} s${attempt}.`;
  return null;
}

/** One take's line in the capture panel, from its latest classification state. */
export function takeText(s: ClassifyState, secondsToRetry: number | null): string {
  if (s.state === 'done') return `Model says: ${s.digest?.text ?? s.message ?? 'classified'}`;
  if (s.state === 'failed') return `Not classified: ${s.error?.message ?? s.message ?? 'unknown error'}`;
  if (s.state === 'cancelled') return 'Classification cancelled; nothing was kept.';
  return progressText(s, secondsToRetry) ?? '';
}

/** The capture option as two boxes: "Classify each take after upload" and "every take, not only testing". */
export function afterUploadBoxes(v: ClassifyAfterUpload): { on: boolean; all: boolean } {
  return { on: v !== 'off', all: v === 'all' };
}

export function afterUploadOf(on: boolean, all: boolean): ClassifyAfterUpload {
  return !on ? 'off' : all ? 'all' : 'testing';
}

/** Whether a take going to `category` is classified under the option, and if not, why (for the panel). */
export function afterUploadNote(v: ClassifyAfterUpload, category: string, uploadWhenSaved: boolean): string | null {
  if (v === 'off') return null;
  if (v === 'testing' && category !== 'testing') return `Takes going to ${category} are not classified; only testing takes are, unless "every take" is ticked.`;
  if (!uploadWhenSaved) return 'Takes are classified once you upload them from the Samples tab.';
  return null;
}

type LabelRow = CollectSummary['labels'][number];

/** "8 of 10 windows right (80%)"; "not classified yet" for a label none of whose takes is. */
export function agreeText(r: Pick<LabelRow, 'windows' | 'agree' | 'classifiedTakes'>): string {
  if (r.classifiedTakes === 0 || r.windows === 0) return 'not classified yet';
  return `${r.agree} of ${plural(r.windows, 'window')} right (${Math.round((100 * r.agree) / r.windows)}%)`;
}

/** "3 takes, 2 classified". */
export function takesText(r: Pick<LabelRow, 'takes' | 'classifiedTakes'>): string {
  return `${plural(r.takes, 'take')}, ${r.classifiedTakes} classified`;
}

/** The session view's headline: "5 takes since 14:00, 3 classified". */
export function collectHeadline(s: Pick<CollectSummary, 'takes' | 'classifiedTakes' | 'since' | 'sessionId'>): string {
  const scope = s.sessionId ? ` in session ${s.sessionId}` : s.since ? ` since ${formatCreated(s.since)}` : '';
  return `${plural(s.takes, 'take')}${scope}, ${s.classifiedTakes} classified`;
}
