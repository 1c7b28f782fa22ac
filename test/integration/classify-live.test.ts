// `capture-desk classify live` through the built CLI on real parts: a board on a PTY (62.5 Hz,
// 3 axes) whose axis-0 level the test sets while it runs, and the PulseAudio test microphone.
// The gesture model here has an anomaly block: its anomaly is the window's peak / 100, and the
// level board's axis 1 is 100 + row / 100, so each verdict names the last board row it heard,
// and every verdict can be checked against what the model must say for exactly those rows.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { playTone, privateSink, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { runCli } from '../support/cli.js';
import { lastRowOf, levelBoard, startClassifyLive, streamAxis, type BoardReport, type LevelBoard } from '../support/live-cli.js';
import { PRESETS, expectedTop, writeTestModel } from '../support/models/test-model.mjs';

const GESTURE = { ...PRESETS.gestureNew, hasAnomaly: true };
const VERDICT_KEYS = ['anomaly', 'classify_ms', 'confidence', 'label', 'scores', 't_ms'];
const LOW = 0.5; // idle: mean |axis 0| well under 2.0
const HIGH = 5; // wave

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let data: string;
beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'cd-classify-live-'));
  data = join(root, 'data');
  for (const [name, opts] of [['gesture', GESTURE], ['kws', PRESETS.audioNew]] as const) {
    const r = await runCli(['model', 'add', (await writeTestModel(join(root, name), opts)).dir, '--name', name, '--data-dir', data]);
    if (r.code !== 0) throw new Error(`model add ${name}: ${r.stderr}`);
  }
}, 60_000);

/** The window a verdict heard, rebuilt from the board's rows (its last row from the anomaly). */
function windowOf(board: LevelBoard, report: BoardReport, lastRow: number): Float32Array {
  const w = new Float32Array(125 * 3);
  for (let r = 0; r < 125; r++) w.set(board.row(report, lastRow - 124 + r), r * 3);
  return w;
}

describe('capture-desk classify live --port (a level board)', () => {
  it('prints a verdict per window that follows the motion, t_ms on the stream\'s axis, a summary, and exits 0 on SIGINT', async () => {
    // The board starts when the port is opened: its row 0 is the stream's first reading (with
    // --baud auto too: the reader starts from the first bytes read at the rate found).
    const board = await levelBoard(cleanups, { level: LOW, startOnOpen: true });
    const run = startClassifyLive(cleanups, ['--model', 'gesture', '--port', board.pty.hostPath, '--data-dir', data]);
    await board.startWhenOpened();
    const labels = () => run.verdicts().map((v) => v.label as string);
    await run.until('4 idle windows', () => labels().filter((l) => l === 'idle').length >= 4);
    await board.setLevel(HIGH);
    await run.until('6 wave windows', () => labels().filter((l) => l === 'wave').length >= 6);
    await board.setLevel(LOW);
    await run.until('6 idle windows after the wave', () => labels().slice(labels().lastIndexOf('wave') + 1).length >= 6);
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(0);
    const report = await board.stop();
    expect(report.changes.map(([, l]) => l)).toEqual([LOW, HIGH, LOW]);

    const verdicts = run.verdicts();
    const summary = run.lines.at(-1)!;
    // The source first (with the baud rate it is read at), verdict lines, then the summary, nothing else.
    expect(run.lines[0]).toEqual({ source: board.pty.hostPath, axes: ['value1', 'value2', 'value3'], rate_hz: expect.any(Number), baud: 115_200, baud_detected: true });
    expect(run.lines.slice(1, -1)).toEqual(verdicts);
    for (const v of verdicts) expect(Object.keys(v).sort()).toEqual(VERDICT_KEYS);

    // Which board rows each window heard: consecutive windows a stride (31.25 rows = 500 ms) apart.
    const last = verdicts.map((v) => lastRowOf(v.anomaly));
    for (let j = 4; j < last.length; j++) expect(last[j]! - last[j - 4]!, `windows ${j - 4}..${j}`).toBe(125);
    for (let j = 1; j < last.length; j++) expect([31, 32]).toContain(last[j]! - last[j - 1]!);
    // t_ms is the window's end on the stream's time axis from the first reading, rows × the
    // interval, although the model started only once the rate had settled. The first reading is
    // the board's row 0, or row 1 or 2 when the reader dropped a first line it could not trust.
    const { firstStreamRow: firstRow, msPerRow } = streamAxis(verdicts.map((v, j) => ({ t: v.t_ms, last: last[j]! })));
    expect(firstRow).toBeGreaterThanOrEqual(0);
    expect(firstRow).toBeLessThanOrEqual(2);
    expect(msPerRow).toBeGreaterThan(16 * 0.99); // the measured rate is within 1 % of 62.5 Hz
    expect(msPerRow).toBeLessThan(16 * 1.01);
    verdicts.forEach((v, j) => expect(v.t_ms / (last[j]! - firstRow + 1)).toBeCloseTo(msPerRow, 3));
    for (let j = 1; j < verdicts.length; j++) {
      const step = verdicts[j]!.t_ms - verdicts[j - 1]!.t_ms;
      expect(step).toBeGreaterThan(496 * 0.99);
      expect(step).toBeLessThan(512 * 1.01);
    }
    expect((verdicts.at(-1)!.t_ms - verdicts[0]!.t_ms) / (verdicts.length - 1)).toBeGreaterThan(500 * 0.98); // 500 on average (a stride in whole rows would drift to 496)

    // Every verdict is what the model says for exactly the rows the board printed there.
    verdicts.forEach((v, j) => {
      const want = expectedTop(GESTURE, windowOf(board, report, last[j]!));
      expect({ label: v.label, confidence: v.confidence, scores: v.scores, anomaly: v.anomaly }, `window ending at row ${last[j]}`).toEqual(want);
      expect(v.classify_ms).toBeGreaterThanOrEqual(0);
    });
    // In words: idle while low, wave while high, whatever the windows straddling a change say.
    const [, [up], [down]] = report.changes as [[number, number], [number, number], [number, number]];
    verdicts.forEach((v, j) => {
      const from = last[j]! - 124;
      if (last[j]! < up || from >= down) expect(v.label, `window ${from}..${last[j]}`).toBe('idle');
      if (from >= up && last[j]! < down) expect(v.label, `window ${from}..${last[j]}`).toBe('wave');
    });
    expect(verdicts.filter((v) => last[verdicts.indexOf(v)]! - 124 >= up && last[verdicts.indexOf(v)]! < down).length).toBeGreaterThanOrEqual(3);

    const byLabel: Record<string, number> = {};
    for (const l of labels()) byLabel[l] = (byLabel[l] ?? 0) + 1;
    expect(summary).toEqual({
      summary: true, windows: verdicts.length, by_label: byLabel, skipped: expect.any(Number),
      classify_ms_p50: expect.any(Number), classify_ms_p95: expect.any(Number),
    });
    expect(summary.skipped).toBeGreaterThanOrEqual(0);
    expect(summary.classify_ms_p50).toBeLessThanOrEqual(summary.classify_ms_p95);
    expect(run.stderr()).toMatch(/: 3 axes \(.*\) at 62\.\d\d Hz \(measured\)\./);
    expect(run.stderr()).toMatch(/Classifying .* with "gesture": windows of 2000 ms every 500 ms until Ctrl\+C\./);
  }, 120_000);

  it('stops by itself after --seconds with exit 0, at the stride asked for', async () => {
    const board = await levelBoard(cleanups, { level: HIGH });
    const run = startClassifyLive(cleanups, ['--model', 'gesture', '--port', board.pty.hostPath, '--seconds', '4', '--stride-ms', '250', '--data-dir', data]);
    expect(await run.exit, run.stderr()).toBe(0);
    expect(Date.now() - run.startedAt).toBeGreaterThanOrEqual(4000);
    const verdicts = run.verdicts();
    // (4000 - 2000) / 250 + 1 = 9 for a board on time; a loaded machine delays or bunches its rows.
    expect(verdicts.length).toBeGreaterThanOrEqual(4);
    expect(verdicts.length).toBeLessThanOrEqual(12);
    expect(verdicts.every((v) => v.label === 'wave' && v.confidence === 0.95)).toBe(true);
    const last = verdicts.map((v) => lastRowOf(v.anomaly));
    for (let j = 8; j < last.length; j++) expect(last[j]! - last[j - 8]!).toBe(125); // 15.625 rows a stride
    expect(run.lines.at(-1)).toMatchObject({ summary: true, windows: verdicts.length, by_label: { wave: verdicts.length } });
    expect(run.stderr()).toMatch(/windows of 2000 ms every 250 ms for 4 s\./);
  }, 60_000);

  it('exits non-zero with a sentence when the board goes away mid-run', async () => {
    const board = await levelBoard(cleanups, { level: LOW });
    const run = startClassifyLive(cleanups, ['--model', 'gesture', '--port', board.pty.hostPath, '--data-dir', data]);
    await run.until('2 windows', () => run.verdicts().length >= 2);
    await board.pty.close(); // the cable comes out
    expect(await run.exit).toBe(1);
    // Which words depends on whether the port's read failed first or its device node was found gone.
    expect(run.stderr()).toMatch(new RegExp(`Classifying stopped: ${board.pty.hostPath} was disconnected \\((unplugged\\?|its device node is gone)\\)\\.\n`));
    expect(run.stderr()).not.toMatch(/Waiting for it to come back/); // it does not wait: it ended
    expect(run.lines.at(-1)).toMatchObject({ summary: true });
    expect(run.lines.at(-1)!.windows).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('refuses a board whose axes do not fit the model, with the numbers', async () => {
    const board = await levelBoard(cleanups, { level: LOW, axes: 2 });
    const r = await runCli(['classify', 'live', '--model', 'gesture', '--port', board.pty.hostPath, '--seconds', '5', '--json', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Model "gesture" takes 3 axes; .* gives 2 \(value1, value2\)\. Choose a source with 3 axes, or another model\./);
  }, 60_000);

  it('refuses a board far slower than the model, and resamples one at another rate (saying so)', async () => {
    const slow = await levelBoard(cleanups, { level: LOW, rate: 10 });
    const r = await runCli(['classify', 'live', '--model', 'gesture', '--port', slow.pty.hostPath, '--frequency', '10', '--seconds', '5', '--json', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gives 10 Hz; model "gesture" needs 62\.5 Hz, more than 4 times faster/);

    const fast = await levelBoard(cleanups, { level: HIGH, rate: 100 });
    const run = startClassifyLive(cleanups, ['--model', 'gesture', '--port', fast.pty.hostPath, '--frequency', '100', '--seconds', '3', '--data-dir', data]);
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(/runs at 100 Hz and the model at 62\.5 Hz: the stream is resampled to 62\.5 Hz/);
    const verdicts = run.verdicts();
    expect(verdicts.length).toBeGreaterThanOrEqual(2);
    expect(verdicts.map((v) => v.label)).toEqual(verdicts.map(() => 'wave'));
    // The model's first window ends 2000 ms after its first row, which came after the stream's first (its columns were detected first).
    expect(verdicts[0]!.t_ms).toBeGreaterThanOrEqual(2000);
  }, 60_000);
});

describe('capture-desk classify live --microphone (the PulseAudio test microphone)', () => {
  it('hears a loud tone as "tone" and silence as "noise", a verdict every slice once a second is in', async () => {
    const server = testPulseFromEnv();
    const mic = await privateSink(server.env);
    cleanups.push(() => mic.unload());
    /** Three seconds of the microphone through the kws model: it ends well, with 3 verdicts or more, each saying `label`. */
    const listen = async (label: string) => {
      const run = startClassifyLive(cleanups, ['--model', 'kws', '--microphone', '--seconds', '3', '--data-dir', data], { env: mic.env });
      expect(await run.exit, run.stderr()).toBe(0);
      const verdicts = run.verdicts();
      expect(verdicts.length).toBeGreaterThanOrEqual(3);
      expect(verdicts.map((v) => v.label)).toEqual(verdicts.map(() => label));
      return { run, verdicts };
    };

    const { run: quiet, verdicts: silent } = await listen('noise');
    expect(silent[0]!.t_ms).toBeGreaterThanOrEqual(1000);
    for (let j = 1; j < silent.length; j++) expect(silent[j]!.t_ms - silent[j - 1]!.t_ms).toBe(250);
    expect(quiet.stderr()).toMatch(/captured at 16000 Hz \(the model's rate\)/);
    expect(quiet.stderr()).toMatch(/Continuous mode: the model hears every slice of 250 ms in order\./);

    // amplitude 0.5: mean |x| = 0.5 × 32767 × 2/π ≈ 10,400, far over the model's 1000
    const tone = playTone({ env: mic.env, sink: mic.sink, tones: [{ freq: 440, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const { run: loud, verdicts: heard } = await listen('tone');
    expect(loud.lines.at(-1)).toMatchObject({ summary: true, windows: heard.length, by_label: { tone: heard.length } });
  }, 90_000);
});
