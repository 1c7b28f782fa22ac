/**
 * For the `capture-desk connect` integration tests: the platform (the ingestion/management emulator
 * with the remote-management WebSocket emulator attached), boards on socat PTYs, and `connect`
 * itself as a real child process of the built CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { existsSync } from 'node:fs';
import type { Cleanups } from './cleanups.js';
import { CLI as BUILT_CLI } from './cli.js';
import { stopChild } from './stop-child.js';
import { startIngestionServer, type IngestionServer, type StartSamplingRequest } from './ingestion-server/server.js';
import { startRemoteManagement, type RemoteMgmtServer } from './remote-mgmt/server.js';

export const API_KEY = 'ei_connect_test_api_key_5f2d9a7c31e04b68';
export const HMAC_KEY = 'connect-test-hmac-key-8c1f77e2a9';
export const PROJECT_ID = 1;

export type { Cleanups } from './cleanups.js';

/** The built CLI (CAPTURE_DESK_TEST_CLI may point at a copy, so a build running beside the tests cannot pull it away). */
const CLI = process.env.CAPTURE_DESK_TEST_CLI ?? BUILT_CLI;
function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first (npm test does it).`);
}

export interface Platform {
  ingestion: IngestionServer;
  remote: RemoteMgmtServer;
  /** Restarts the remote-management service on the same port (devices must reconnect by themselves). */
  restartRemote(downMs?: number): Promise<void>;
  /** POST start-sampling, as a script or the platform's web page does; resolves with the JSON answer. */
  startSampling(deviceId: string, req: Partial<StartSamplingRequest> & { label: string; lengthMs: number }): Promise<{ success: boolean; error?: string; id?: number }>;
  /** Every message the device and the platform exchanged, device by device, in order ('in' = from the device). */
  log(deviceId: string): Array<{ dir: 'in' | 'out'; type: string; message: Record<string, unknown>; at: number }>;
}

export async function startPlatform(cleanups: Cleanups, opts: { hmacKey?: string | null } = {}): Promise<Platform> {
  const ingestion = await startIngestionServer({ apiKeys: [API_KEY], projectId: PROJECT_ID, hmacKey: opts.hmacKey ?? null, deviceReplyTimeoutMs: 5_000 });
  cleanups.push(() => ingestion.close());
  const p: Platform = {
    ingestion,
    remote: await startRemoteManagement({ ingestion }),
    async restartRemote(downMs = 0) {
      const port = p.remote.port;
      await p.remote.close();
      if (downMs) await new Promise((r) => setTimeout(r, downMs));
      p.remote = await startRemoteManagement({ ingestion, port });
    },
    async startSampling(deviceId, req) {
      const res = await fetch(`${ingestion.managementUrl}/api/${PROJECT_ID}/device/${encodeURIComponent(deviceId)}/start-sampling`, {
        method: 'POST',
        headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ category: 'training', intervalMs: 10, ...req }),
      });
      return (await res.json()) as { success: boolean; error?: string; id?: number };
    },
    log(deviceId) {
      return p.remote.messages
        .filter((m) => m.deviceId === deviceId)
        .map((m) => ({ dir: m.dir, type: typeOf(m.message), message: m.message, at: m.at }));
    },
  };
  cleanups.push(() => p.remote.close());
  return p;
}

/** A message's type as the spec names it: its single key, with sample true/false told apart. */
function typeOf(m: Record<string, unknown>): string {
  const key = Object.keys(m)[0] ?? '';
  if (key === 'sample' && typeof m.sample === 'boolean') return m.sample ? 'sample' : 'sample:false';
  if (key === 'hello' && typeof m.hello === 'boolean') return m.hello ? 'hello:true' : 'hello:false';
  return key;
}

// Boards for `connect` to serve: the same boards on PTYs as every integration test starts.
export { atBoard, lineBoard, type Board } from './boards/board-on-pty.js';

export type ConnectEvent = Record<string, unknown> & { event: string; device_id: string };

export interface Connect {
  child: ChildProcess;
  dataDir: string;
  events: ConnectEvent[];
  stderr(): string;
  /** Resolves with the first event (seen already, or coming) that matches, after `from` events. */
  waitEvent(pred: (e: ConnectEvent) => boolean, timeoutMs?: number, from?: number): Promise<ConnectEvent>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export const newDataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-connect-')), 'data');

/** `capture-desk connect --json` against the platform, with the test's keys unless `keys: false`. */
export async function startConnect(cleanups: Cleanups, p: Platform, args: string[], o: { dataDir?: string; env?: NodeJS.ProcessEnv; keys?: boolean } = {}): Promise<Connect> {
  assertBuilt();
  const dataDir = o.dataDir ?? (await newDataDir());
  const full = [
    CLI, 'connect', ...args, '--json', '--data-dir', dataDir, '--project-id', String(PROJECT_ID),
    '--remote-mgmt-url', p.remote.url, '--ingestion-url', p.ingestion.url, '--management-url', p.ingestion.managementUrl,
    ...(o.keys === false ? [] : ['--api-key', API_KEY]),
  ];
  const child = spawn(process.execPath, full, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...o.env } });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const events: ConnectEvent[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (l) => {
    events.push(JSON.parse(l) as ConnectEvent);
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const c: Connect = {
    child, dataDir, events, exited,
    stderr: () => err,
    waitEvent(pred, timeoutMs = 10_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const e = events.slice(from).find(pred);
          if (!e) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(e);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching connect event within ${timeoutMs} ms; events: ${JSON.stringify(events)}\nstderr:\n${err}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  cleanups.push(() => stopChild(child));
  return c;
}

/** `capture-desk samples list --json` of a data dir. */
export async function listSamples(dataDir: string): Promise<Array<Record<string, unknown> & { id: string; file: string; platform: { sample_id: number | null; note: string | null } }>> {
  const child = spawn(process.execPath, [CLI, 'samples', 'list', '--json', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`samples list failed (${code}): ${err}`);
  return out.trim() ? out.trim().split('\n').map((l) => JSON.parse(l)) : [];
}
