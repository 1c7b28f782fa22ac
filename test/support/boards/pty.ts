import { spawn, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A pseudo-terminal pair made by socat: a simulated board opens `boardPath`, the code under test
 * opens `hostPath` through serialport as it would a real port. Closing kills socat, which both
 * ends see as the line going away (serialport: a `close` event with `disconnected: true`).
 */
export interface PtyPair {
  hostPath: string;
  boardPath: string;
  close(): Promise<void>;
}

/** The UART bridge (uart-pty.py): a PTY pair whose board end runs at a baud rate of its own. */
export const UART_PTY = fileURLToPath(new URL('./uart-pty.py', import.meta.url));

export interface PtyPairOptions {
  timeoutMs?: number;
  dir?: string;
  /**
   * The board's UART rate: the pair is then uart-pty.py instead of socat, and the host reads at
   * the rate it set what a UART at that rate would receive from a board at this one (garbage when
   * they differ), paced at the board's wire speed.
   */
  boardBaud?: number;
  /** With boardBaud: text sent once at `bannerBaud` when the host opens the port (an ESP8266's ROM at 74880). */
  banner?: string;
  bannerBaud?: number;
}

export function socatAvailable(): boolean {
  return spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;
}

/**
 * `dir` reuses a folder, so a second pair gets the same paths: the same board plugged back in
 * (its port reappears under the same name), which is what reconnect tests need.
 */
export async function openPtyPair(opts: PtyPairOptions = {}): Promise<PtyPair> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'cd-pty-')));
  if (opts.dir) await mkdir(dir, { recursive: true });
  const hostPath = join(dir, 'host');
  const boardPath = join(dir, 'board');
  const socat = opts.boardBaud
    ? spawn('python3', [UART_PTY, '--board-baud', String(opts.boardBaud), ...(opts.banner ? ['--banner', opts.banner, '--banner-baud', String(opts.bannerBaud ?? 74_880)] : []), hostPath, boardPath], {
        stdio: ['ignore', 'ignore', 'pipe'],
      })
    : spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${hostPath}`, `pty,raw,echo=0,link=${boardPath}`], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
  let log = '';
  socat.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => socat.once('close', () => resolve()));
  let spawnError: Error | null = null;
  socat.once('error', (err) => (spawnError = err));

  const close = async () => {
    if (socat.exitCode === null && socat.signalCode === null) {
      socat.kill('SIGTERM');
      await exited;
    }
    if (opts.dir) {
      await rm(hostPath, { force: true });
      await rm(boardPath, { force: true });
    } else await rm(dir, { recursive: true, force: true });
  };

  // socat (and uart-pty.py) log "starting data transfer loop" once both PTYs exist and they relay between them.
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
  while (!(log.includes('starting data transfer loop') && (await exists(hostPath)) && (await exists(boardPath)))) {
    if (spawnError || socat.exitCode !== null || Date.now() > deadline) {
      await close();
      const why = spawnError ? (spawnError as Error).message : log.trim() || 'no output';
      throw new Error(opts.boardBaud
        ? `uart-pty.py did not set up a PTY pair (${why}). It needs python3 (apt install python3).`
        : `socat did not set up a PTY pair (${why}). Install socat (apt install socat).`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return { hostPath, boardPath, close };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
