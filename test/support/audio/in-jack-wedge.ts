import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assertBuilt, CLI } from '../cli.js';

/** test/support/audio/jack-wedge.sh: a private /dev/shm whose JACK metadata lock is stale. */
export const JACK_WEDGE = fileURLToPath(new URL('./jack-wedge.sh', import.meta.url));

export interface WedgedCli {
  /** Its pid is the CLI's own once the wedge is ready (the script execs it). */
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the wedge is made and the CLI starts (rejects if the wedge could not be made). */
  ready: Promise<number>;
  /** Exit code (null after a signal) and ms from "ready" to exit. */
  exited: Promise<{ code: number | null; ms: number }>;
}

/** Runs the built CLI with these arguments inside a private, wedged /dev/shm. */
export function cliInJackWedge(args: string[], env: NodeJS.ProcessEnv = {}): WedgedCli {
  assertBuilt();
  const child = spawn('bash', [JACK_WEDGE, process.execPath, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  let readyAt = 0;
  let markReady: (t: number) => void = () => undefined;
  const ready = new Promise<number>((resolve) => (markReady = resolve));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    if (!readyAt && err.includes('jack-wedge: ready')) {
      readyAt = Date.now();
      markReady(readyAt);
    }
  });
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) => {
    child.once('close', (code) => resolve({ code, ms: readyAt ? Date.now() - readyAt : -1 }));
  });
  const readyOrFail = Promise.race([ready, exited.then(({ code }) => Promise.reject(new Error(`the JACK wedge could not be made (exit ${code}): ${err}`)))]);
  readyOrFail.catch(() => undefined);
  return { child, stdout: () => out, stderr: () => err, ready: readyOrFail, exited };
}

/** `capture-desk serve` inside a private, wedged /dev/shm; resolves with its URL once it prints it. */
export function serveInJackWedge(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  assertBuilt();
  const child = spawn('bash', [JACK_WEDGE, process.execPath, CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve({ url: out.split('\n')[0]!.trim(), child, stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}
