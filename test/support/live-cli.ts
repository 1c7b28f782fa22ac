// `capture-desk classify live` end to end: a level board on a PTY whose motion the test sets while
// it runs (level-board.mjs), and the built CLI started in the background with its JSON lines
// collected as they come, so a test can change the motion after so many windows and end the run
// with SIGINT.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { LEVEL_BOARD, startBoard } from './boards/board-on-pty.js';
import { levelOfRow, levelRow } from './boards/level-board-values.mjs';
import type { PtyPair } from './boards/pty.js';
import type { Cleanups } from './cleanups.js';
import { CLI, assertBuilt } from './cli.js';
import { stopChild } from './stop-child.js';

const execFileP = promisify(execFile);

/** What the board printed, as it says on exit: rows written and its level changes [[first row, level], …]. */
export interface BoardReport {
  rows: number;
  changes: Array<[number, number]>;
}

export interface LevelBoard {
  pty: PtyPair;
  /** Axis 0 swings at this level from the board's next burst on. */
  setLevel(level: number): Promise<void>;
  /** Stops the board; resolves with its report. */
  stop(): Promise<BoardReport>;
  /** Board row i as printed (levels from the report's timeline). */
  row(report: BoardReport, i: number): number[];
  /**
   * With `startOnOpen`: resolves once the host has opened the port and set it up, and the board
   * then starts (row 0 due at once), so the host reads the board from its first row.
   */
  startWhenOpened(): Promise<void>;
}

/**
 * `schedule`: the board's own timeline instead of a level the test sets ([[board ms, level], …],
 * see level-board.mjs); setLevel then does nothing the board reads.
 */
export async function levelBoard(cleanups: Cleanups, o: { level: number; rate?: number; axes?: number; schedule?: Array<[number, number]>; startOnOpen?: boolean }): Promise<LevelBoard> {
  const levelDir = await mkdtemp(join(tmpdir(), 'cd-level-'));
  cleanups.push(() => rm(levelDir, { recursive: true, force: true }));
  const levelFile = join(levelDir, 'level');
  await writeFile(levelFile, String(o.level));
  const axes = o.axes ?? 3;
  // Not both: the level file, read before every burst, would undo the schedule's changes.
  const levelFrom = o.schedule ? ['--schedule', JSON.stringify(o.schedule)] : ['--level-file', levelFile];
  const startFile = join(levelDir, 'start');
  const gate = o.startOnOpen ? ['--start-file', startFile] : [];
  const board = await startBoard(cleanups, LEVEL_BOARD, ['--rate', String(o.rate ?? 62.5), '--axes', String(axes), '--level', String(o.level), ...levelFrom, ...gate]);
  // Its report is its last line, read once its output is closed.
  const closed = once(board.child, 'close');
  return {
    pty: board.pty,
    setLevel: async (level) => {
      // Renamed into place: the board never reads a half-written file.
      await writeFile(`${levelFile}.new`, String(level));
      await rename(`${levelFile}.new`, levelFile);
    },
    async stop() {
      if (board.child.exitCode === null && board.child.signalCode === null) board.child.kill('SIGTERM');
      await closed;
      return board.events.at(-1) as unknown as BoardReport;
    },
    row: (report, i) => levelRow(i, levelOfRow(report.changes, i), axes),
    async startWhenOpened() {
      if (!o.startOnOpen) throw new Error('levelBoard: startWhenOpened needs { startOnOpen: true }');
      // serialport throws away what the port held (tcflush) and then sets the speed: once the
      // speed reads 115200 (socat's PTY starts at 38400), every row from now on reaches the host.
      const deadline = Date.now() + 60_000;
      while ((await execFileP('stty', ['-F', board.pty.hostPath, 'speed'])).stdout.trim() !== '115200') {
        if (Date.now() > deadline) throw new Error(`the host did not open ${board.pty.hostPath} within 60 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await writeFile(startFile, '');
    },
  };
}

export interface LiveRun {
  child: ChildProcess;
  /** Every JSON line printed so far, in order. */
  lines: Array<Record<string, any>>;
  /** Verdict lines so far (lines with t_ms). */
  verdicts(): Array<Record<string, any>>;
  stderr(): string;
  /** Waits until `ok(lines)` or the timeout (generous: machines are loaded); says what it saw if not. */
  until(what: string, ok: (lines: Array<Record<string, any>>) => boolean, ms?: number): Promise<void>;
  /** Resolves with the exit code once the CLI ended. */
  exit: Promise<number | null>;
  startedAt: number;
}

/** Starts `capture-desk classify live ARGS --json` in the background. */
export function startClassifyLive(cleanups: Cleanups, args: string[], o: { env?: NodeJS.ProcessEnv } = {}): LiveRun {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, 'classify', 'live', ...args, '--json'], { env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, any>> = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  createInterface({ input: child.stdout! }).on('line', (l) => lines.push(JSON.parse(l) as Record<string, any>));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Lines still in the pipe are read before the test looks at them.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  cleanups.push(() => stopChild(child, 'SIGKILL', 'close'));
  return {
    child,
    lines,
    verdicts: () => lines.filter((l) => 't_ms' in l),
    stderr: () => stderr,
    startedAt: Date.now(),
    async until(what, ok, ms = 60_000) {
      const end = Date.now() + ms;
      while (!ok(lines)) {
        if (child.exitCode !== null || Date.now() > end) {
          throw new Error(`classify live: ${child.exitCode !== null ? `exited (${child.exitCode})` : 'timed out'} before ${what}.\nstdout: ${lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr: ${stderr}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    exit: Promise.all([exit, closed]).then(([code]) => code),
  };
}

/** The last board row in a window, from the anomaly of a model with an anomaly block on a level board (peak / 100, the peak being axis 1 = 100 + row / 100). */
export const lastRowOf = (anomaly: number): number => Math.round((anomaly - 1) * 10_000);

/**
 * The stream's time axis as the verdicts of a level board show it (t_ms against the last board row
 * each heard): the board row of the stream's first reading and the ms per row. On a board started
 * with `startOnOpen` the first reading is row 0, or row 1 or 2 when the reader dropped a first
 * line it could not trust.
 */
export function streamAxis(verdicts: ReadonlyArray<{ t: number; last: number }>): { firstStreamRow: number; msPerRow: number } {
  const a = verdicts[0]!;
  const b = verdicts.at(-1)!;
  const slope = (b.t - a.t) / (b.last - a.last);
  const firstStreamRow = Math.round(a.last + 1 - a.t / slope);
  return { firstStreamRow, msPerRow: a.t / (a.last - firstStreamRow + 1) };
}
