import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Cleanups } from '../cleanups.js';
import { stopChild } from '../stop-child.js';
import { openPtyPair, type PtyPair } from './pty.js';

// A board emulator (one of the scripts beside this file) on a socat PTY pair of its own: the code
// under test opens `pty.hostPath` through serialport exactly as it would a real board. Every test
// that needs a board starts it this way, so each one is stopped, and its PTY closed, after the
// test (board first, then the PTY: the last thing started stops first).

const script = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
/** Numeric lines at a steady rate (row i, axis a is boardValue(i, a)); a report on exit. */
export const LINE_BOARD = script('line-board.mjs');
/** The platform's official AT firmware; one JSON event a line ({"event":"ready"} first). */
export const AT_BOARD = script('at-board.mjs');
/** Good numeric lines for --good-ms, then only noise; {"rows"} on exit. */
export const NOISY_BOARD = script('numbers-then-garbage.mjs');
/** Nordic's data forwarder firmware: COBS/CBOR frames with seq and ts; a report on exit (nordic-board.mjs). */
export const NORDIC_BOARD = script('nordic-board.mjs');
/** Another program holding a port open (and flocked), named --title; {"event":"open"} once it holds it. */
export const PORT_HOLDER = script('port-holder.mjs');
/** Lines whose axis 0 swings at a level the test sets while it runs; {"rows", "changes"} on exit. */
export const LEVEL_BOARD = script('level-board.mjs');

/** What a board printed on stdout: one JSON object a line (a line that is not JSON is kept as `{ text }`). */
export type BoardEvent = Record<string, unknown>;

export interface Board<E = BoardEvent> {
  pty: PtyPair;
  child: ChildProcess;
  events: E[];
  /** Unplugs it: the PTY and then the board go away. */
  unplug(): Promise<void>;
}

export interface BoardOptions {
  /**
   * How the clean-up stops the board. Default SIGKILL for the line boards; SIGTERM for the AT
   * board, which then closes its port (within 300 ms).
   */
  kill?: NodeJS.Signals;
  /** A folder for the PTY's links that a later board may reuse: the same board plugged back in (see openPtyPair). */
  ptyDir?: string;
  /** The board's UART rate: its bytes reach a host at another rate as a UART would receive them (see uart-pty.py). */
  boardBaud?: number;
  /** With boardBaud: an ESP8266-like boot banner at `bannerBaud` (default 74880) when the host opens the port. */
  banner?: string;
  bannerBaud?: number;
}

/** Starts `script --port <board end> ...args` on a new PTY pair. */
export async function startBoard<E = BoardEvent>(cleanups: Cleanups, script: string, args: string[], opts: BoardOptions = {}): Promise<Board<E>> {
  const pty = await openPtyPair({
    ...(opts.ptyDir ? { dir: opts.ptyDir } : {}),
    ...(opts.boardBaud ? { boardBaud: opts.boardBaud, banner: opts.banner, bannerBaud: opts.bannerBaud } : {}),
  });
  cleanups.push(() => pty.close());
  const child = spawn(process.execPath, [script, '--port', pty.boardPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => stopChild(child, opts.kill ?? 'SIGKILL');
  cleanups.push(stop);
  const events: E[] = [];
  createInterface({ input: child.stdout! }).on('line', (l) => events.push(parseLine(l) as E));
  return { pty, child, events, unplug: async () => (await pty.close(), await stop()) };
}

function parseLine(line: string): BoardEvent {
  try {
    return JSON.parse(line) as BoardEvent;
  } catch {
    return { text: line };
  }
}

/** A board printing numeric lines (line-board.mjs), 100 Hz and 3 axes unless `args` say otherwise. */
export function lineBoard(cleanups: Cleanups, args: string[] = ['--rate', '100'], opts: BoardOptions = {}): Promise<Board> {
  return startBoard(cleanups, LINE_BOARD, args, opts);
}

/** A board with the platform's official firmware (at-board.mjs), once it says it is ready to answer. */
export async function atBoard<E = BoardEvent>(
  cleanups: Cleanups,
  args: string[] = ['--at-version', '1.6.0', '--storage', 'file', '--time-scale', '0.05'],
  opts: BoardOptions = {},
): Promise<Board<E>> {
  const b = await startBoard<E>(cleanups, AT_BOARD, args, { kill: 'SIGTERM', ...opts });
  const deadline = Date.now() + 5000;
  while (!b.events.some((e) => (e as BoardEvent).event === 'ready')) {
    if (b.child.exitCode !== null || Date.now() > deadline) throw new Error(`the AT board did not get ready within 5 s (${b.child.exitCode !== null ? `it exited with ${b.child.exitCode}` : 'still running'})`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return b;
}

/** A board running Nordic's data forwarder (nordic-board.mjs), 100 Hz, 6 channels, int32 with CRC unless `args` say otherwise. */
export function nordicBoard(cleanups: Cleanups, args: string[] = ['--rate', '100'], opts: BoardOptions = {}): Promise<Board> {
  return startBoard(cleanups, NORDIC_BOARD, args, opts);
}

/** Another program (named `title`) holding `path` open and flocked until the test ends; resolves once it holds it. */
export async function holdPort(cleanups: Cleanups, path: string, title: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [PORT_HOLDER, '--port', path, '--title', title], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(() => stopChild(child));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the port holder did not open ${path} within 5 s`)), 5000);
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (parseLine(l).event === 'open') (clearTimeout(timer), resolve());
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`the port holder exited with ${code} before holding ${path}`))));
  });
  return child;
}
