import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does it).`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The run as user "nobody" with no supplementary groups (`unprivileged`): tests run as root in CI,
 * and no file mode stops root. Whatever it must read or write has to be open to others.
 */
const UNPRIVILEGED = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups'];

/** Runs the built CLI to completion. */
export function runCli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string; onSpawn?: (child: ChildProcess) => void; unprivileged?: boolean } = {}): Promise<CliResult> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const [cmd, ...prefix] = opts.unprivileged ? [...UNPRIVILEGED, process.execPath] : [process.execPath];
    const child = spawn(cmd!, [...prefix, CLI, ...args], { env: { ...process.env, ...opts.env }, ...(opts.cwd ? { cwd: opts.cwd } : {}) });
    opts.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Starts `capture-desk serve` and resolves with the URL it prints first. `stdout()` has what it
 * printed since (under TLS, the certificate's fingerprint on the second line).
 */
export function startServe(args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<{ url: string; child: ChildProcess; stderr: () => string; stdout: () => string }> {
  assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ url: line.trim(), child, stderr: () => err, stdout: () => out });
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}
