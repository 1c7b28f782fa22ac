import type { ModelDescription, ModelEntry } from '../../../src-main/core/contract/contract.js';

/** A file that goes to the models, not the samples: the platform's WebAssembly export comes as a .zip (samples never do). */
export const isModelZip = (name: string): boolean => /\.zip$/i.test(name);

const num = (x: number, digits = 2) => String(Number(x.toFixed(digits)));

/** "3 axes", "unknown" (an old build nobody gave the count), "3 (given)". */
export function axesText(d: ModelDescription): string {
  if (d.axes === null) return 'unknown';
  return `${d.axes}${d.axesFrom === 'given' ? ' (given)' : ''}`;
}

/** The build generation in words: init() and continuous mode are what tell old exports from new. */
export function buildText(d: ModelDescription): string {
  const gen = d.hasInit ? 'newer build (init)' : 'older build (no init)';
  return `${gen}, ${d.continuous ? 'continuous mode' : 'no continuous mode'}${d.modelType ? `, ${d.modelType}` : ''}`;
}

/** One line for a picker: "gestures (62.5 Hz, 3 axes: idle, wave)". */
export function modelSummary(m: ModelEntry): string {
  const d = m.description;
  const labels = d.labels.length > 4 ? `${d.labels.slice(0, 4).join(', ')}, …` : d.labels.join(', ');
  return `${m.name} (${num(d.frequencyHz)} Hz, ${d.axes === null ? 'axes unknown' : `${d.axes} ${d.axes === 1 ? 'axis' : 'axes'}`}: ${labels})`;
}

/** The description as label/value rows, in the order Settings → Models shows them. */
export function descriptionRows(m: ModelEntry): Array<[string, string]> {
  const d = m.description;
  const rows: Array<[string, string]> = [
    ['Sensor', d.sensor],
    ['Frequency', `${num(d.frequencyHz)} Hz`],
    ['Window', `${num(d.windowMs, 0)} ms (${d.frameSampleCount} readings per axis)`],
    ['Axes', axesText(d)],
    ['Labels', d.labels.join(', ') || 'none'],
    ['Anomaly', d.hasAnomaly ? 'yes (anomaly score per window)' : 'no'],
    ['Build', buildText(d)],
    ['Time per window', `${num(d.classifyMs, 2)} ms here (start ${num(d.startMs, 0)} ms)`],
  ];
  const p = d.project;
  if (p && (p.name || p.id !== null)) rows.push(['Project', `${p.name ?? ''}${p.id !== null ? ` #${p.id}` : ''}${p.deployVersion !== null ? `, deploy ${p.deployVersion}` : ''}`.trim()]);
  return rows;
}

/** "ready", or what is wrong ("changed", "missing", "failed"), for the status badge. */
export function statusText(m: ModelEntry): string {
  return m.status === 'ready' ? 'ready' : m.status;
}

/** Why a model cannot run on samples at all (a sample that does not fit it is the core's to find and say); null when it can. */
export function cannotRun(m: ModelEntry): string | null {
  if (m.status === 'missing' || m.status === 'changed') return m.problem ?? `its files are ${m.status}`;
  return m.description.axes === null ? 'its axes are not known: give them in Settings → Models' : null;
}

/** A picker's option: the model, and what it takes or why it cannot run. */
export function pickerText(m: ModelEntry): string {
  const why = cannotRun(m);
  const d = m.description;
  return why ? `${m.name} (cannot run: ${why})` : `${m.name} (${d.axes} ${d.axes === 1 ? 'axis' : 'axes'}, ${d.frequencyHz} Hz, window ${d.windowMs} ms)`;
}

/** A stride typed in a form: empty is a quarter window (null); anything but a whole number of ms above 0 is said back. */
export function strideOf(text: string): { ok: true; strideMs: number | null } | { ok: false; message: string } {
  const t = text.trim();
  if (t === '') return { ok: true, strideMs: null };
  const n = Number(t);
  if (Number.isInteger(n) && n > 0 && n <= 600_000) return { ok: true, strideMs: n };
  return { ok: false, message: `A stride of "${t}" ms is not a whole number above 0; leave it empty for a quarter window.` };
}
