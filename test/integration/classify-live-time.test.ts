// Issue 42, item 2: `classify live --port` says each window's t_ms on the board's own time axis
// (row index × interval from the stream's first reading), whenever the model started. A board on a
// PTY prints known stretches (6 s of zeros, 8 s of a swing the model calls "wave", 6 s of zeros at
// 62.5 Hz, scheduled by the board's own row clock) from the moment the CLI has opened its port,
// as an Arduino does when the port's opening resets it: its row 0 is the stream's first reading.
// The CLI measures the rate (no --frequency), so the model starts only once the rate has settled,
// a second or more after that first reading: the rows before it are what the bug left out of t_ms
// (under load it took seconds, as the busy machine slows the estimates' agreement). The
// model's anomaly names the last board row each window heard (see live-cli.ts), so each t_ms is
// checked against the rows themselves, and each window's span against the stretch it lies in.
// Nothing here waits for the machine to be idle: run it with `LOAD=2 bash test/env.sh …` too.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { lastRowOf, levelBoard, startClassifyLive } from '../support/live-cli.js';
import { PRESETS, writeTestModel } from '../support/models/test-model.mjs';

const GESTURE = { ...PRESETS.gestureNew, hasAnomaly: true };
const MS_PER_ROW = 16; // the board prints at 62.5 Hz
const WINDOW_MS = 2000;
/** The board's stretches, in its own ms: zeros, then ±5 (mean |x| 5, far over the model's 2.0), then zeros. */
const WAVE_FROM = 6000;
const WAVE_TO = 14_000;
const SCHEDULE: Array<[number, number]> = [[0, 0], [WAVE_FROM, 5], [WAVE_TO, 0]];
/** A couple of sample intervals: a window's span may be off by no more than this. */
const TOLERANCE_MS = 2 * MS_PER_ROW;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let data: string;
beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'cd-classify-live-time-'));
  data = join(root, 'data');
  const r = await runCli(['model', 'add', (await writeTestModel(join(root, 'gesture'), GESTURE)).dir, '--name', 'gesture', '--data-dir', data]);
  if (r.code !== 0) throw new Error(`model add: ${r.stderr}`);
}, 60_000);

/** What the model must say for a window wholly inside one stretch (with the tolerance); null: it straddles a change. */
function stretchOf(fromMs: number, toMs: number): 'idle' | 'wave' | null {
  const inside = (a: number, b: number) => fromMs >= a + TOLERANCE_MS && toMs <= b - TOLERANCE_MS;
  if (inside(-Infinity, WAVE_FROM) || inside(WAVE_TO, Infinity)) return 'idle';
  if (inside(WAVE_FROM, WAVE_TO)) return 'wave';
  return null;
}

describe('capture-desk classify live --port: t_ms on the board\'s own time axis', () => {
  it('puts every window where the board printed it, the measured rate\'s wait before the model included', async () => {
    const board = await levelBoard(cleanups, { level: 0, schedule: SCHEDULE, startOnOpen: true });
    const run = startClassifyLive(cleanups, ['--model', 'gesture', '--port', board.pty.hostPath, '--data-dir', data]);
    await board.startWhenOpened();
    // Past the second stretch of zeros by a few windows, by the board's rows (not t_ms, which is under test).
    await run.until('windows 3 s into the last zeros', () => run.verdicts().some((v) => lastRowOf(v.anomaly) * MS_PER_ROW >= WAVE_TO + 3000), 90_000);
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(0);
    await board.stop();

    // t_ms is in the CLI's ms: rows × 1000 / the rate it measured and said (two decimals).
    const hz = Number(/ at (\d+\.\d\d) Hz \(measured\)\./.exec(run.stderr())?.[1]);
    expect(hz, run.stderr()).toBeGreaterThan(62.5 * 0.99);
    expect(hz).toBeLessThan(62.5 * 1.01);
    const onBoard = (tMs: number) => ((tMs * hz) / 1000) * MS_PER_ROW; // the same rows, in the board's ms

    const verdicts = run.verdicts();
    const judged = { idle: 0, wave: 0 };
    const wrong: string[] = [];
    for (const v of verdicts) {
      const lastRow = lastRowOf(v.anomaly);
      const end = onBoard(v.t_ms);
      // The window's end is just past the last row it heard, as the board counts its rows.
      if (Math.abs(end - (lastRow + 1) * MS_PER_ROW) > TOLERANCE_MS) wrong.push(`t_ms ${v.t_ms} (board ${end.toFixed(0)} ms) for a window whose last row is ${lastRow} (board ${(lastRow + 1) * MS_PER_ROW} ms)`);
      const want = stretchOf(end - WINDOW_MS, end);
      if (want === null) continue;
      judged[want]++;
      if (v.label !== want) wrong.push(`"${v.label}" for ${(end - WINDOW_MS).toFixed(0)}–${end.toFixed(0)} ms, wholly in the ${want === 'wave' ? 'swing' : 'zeros'}`);
    }
    expect(wrong, `${wrong.length} of ${verdicts.length} windows out of place:\n${wrong.slice(0, 12).join('\n')}`).toEqual([]);
    // Not true for want of windows: the swing holds (8000 - 2000) / 500 + 1 = 13 whole windows, the last zeros 3 s of them.
    expect(judged.wave, JSON.stringify(judged)).toBeGreaterThanOrEqual(8);
    expect(judged.idle, JSON.stringify(judged)).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
