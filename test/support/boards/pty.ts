import { spawn, spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

export function socatAvailable(): boolean {
  return spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;
}

/**
 * `dir` reuses a folder, so a second pair gets the same paths: the same board plugged back in
 * (its port reappears under the same name), which is what reconnect tests need.
 */
export async function openPtyPair(opts: { timeoutMs?: number; dir?: string } = {}): Promise<PtyPair> {
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'cd-pty-')));
  if (opts.dir) await mkdir(dir, { recursive: true });
  const hostPath = join(dir, 'host');
  const boardPath = join(dir, 'board');
  const socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${hostPath}`, `pty,raw,echo=0,link=${boardPath}`], {
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

  // socat logs "starting data transfer loop" once both PTYs exist and it relays between them.
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
  while (!(log.includes('starting data transfer loop') && (await exists(hostPath)) && (await exists(boardPath)))) {
    if (spawnError || socat.exitCode !== null || Date.now() > deadline) {
      await close();
      const why = spawnError ? (spawnError as Error).message : log.trim() || 'no output';
      throw new Error(`socat did not set up a PTY pair (${why}). Install socat (apt install socat).`);
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
