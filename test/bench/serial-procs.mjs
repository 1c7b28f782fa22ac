// Helpers of the "serial" bench section (no `run` export, nothing happens on import): the processes
// around the core (socat PTY pair, `capture-desk serve`), a contract client over its WebSocket, and
// per-process CPU time and RSS from /proc.
import { spawn } from 'node:child_process';
import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Encoder } from 'cbor-x';
import WebSocket from 'ws';

const CLK_TCK = 100; // Linux USER_HZ
const wire = new Encoder({ useRecords: false, variableMapSize: true });

/** User + system CPU seconds of a process (all its threads) and its RSS, or null once it is gone. */
export async function procStat(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return { cpuSeconds: (Number(f[11]) + Number(f[12])) / CLK_TCK, rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024 };
  } catch {
    return null;
  }
}

/**
 * CPU time of the whole machine so far (/proc/stat, every core): `busy` (everything but idle and
 * iowait) and `total`, in seconds summed over cores; and `kthreads`, the CPU seconds of each of the
 * kernel's own threads by pid (children of kthreadd: a PTY's bytes are moved by kworker threads,
 * which no process's own CPU time shows), or null if /proc shows none. Two readings give the cores
 * kept busy between them, by anything: the bench's own processes, the kernel's threads (see
 * kernelShare) and other programs.
 */
export async function machineStat() {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0];
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0); // guest time is already inside user/nice
  const idle = f[3] + (f[4] ?? 0);
  const kthreads = new Map();
  const pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d));
  await Promise.all(pids.map(async (pid) => {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
    if (!stat) return;
    const k = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (k[1] === '2' || pid === '2') kthreads.set(pid, (Number(k[11]) + Number(k[12])) / CLK_TCK); // ppid 2: kthreadd's children
  }));
  return { busy: (total - idle) / CLK_TCK, total: total / CLK_TCK, kthreads: kthreads.size ? kthreads : null };
}

/**
 * % of one core the kernel's threads used between two machineStat() readings over `ms`, counting
 * only threads there at both (kworkers come and go; one gone meanwhile would count negative), or
 * null if /proc shows none.
 */
export function kernelShare(a, b, ms) {
  if (!a.kthreads || !b.kthreads) return null;
  let s = 0;
  for (const [pid, t] of b.kthreads) if (a.kthreads.has(pid)) s += Math.max(0, t - a.kthreads.get(pid));
  return (s / (ms / 1000)) * 100;
}

const exists = (p) => access(p).then(() => true, () => false);

/** A socat PTY pair in `dir`: the core opens `host`, the writer `board`. */
export async function openPtyPair(dir) {
  const host = join(dir, 'host');
  const board = join(dir, 'board');
  const socat = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${host}`, `pty,raw,echo=0,link=${board}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  socat.stderr.setEncoding('utf8').on('data', (d) => (log = (log + d).slice(-4000)));
  const gone = new Promise((r) => socat.once('close', r));
  socat.once('error', (err) => (log += `\n${err.message}`));
  const close = async () => {
    if (socat.exitCode === null && socat.signalCode === null) socat.kill('SIGTERM');
    await gone;
  };
  const deadline = Date.now() + 5000;
  while (!(log.includes('starting data transfer loop') && (await exists(host)) && (await exists(board)))) {
    if (socat.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`socat did not set up a PTY pair (${log.trim() || 'no output'}); install socat`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return { host, board, pid: socat.pid, close };
}

/** `capture-desk serve --port 0`; resolves once it printed its URL. `nodeArgs` e.g. ['--cpu-prof']. */
export async function startServe(cli, dataDir, nodeArgs = []) {
  const child = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--port', '0', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-8000)));
  const exited = new Promise((r) => child.once('close', r));
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`serve exited with ${code} before printing its URL: ${stderr.trim()}`)));
  });
  return {
    pid: child.pid,
    url,
    wsUrl: `${url.replace(/^http/, 'ws')}ws`,
    stderr: () => stderr,
    /** SIGTERM, as a user's Ctrl-C: serve shuts down cleanly (and writes a --cpu-prof profile). */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The renderer's side of the contract: call(method, input) and every event to `onEvent(name, payload)`. */
export async function connectClient(wsUrl, onEvent) {
  const ws = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode} from ${wsUrl}`)));
  });
  const pending = new Map();
  let nextId = 1;
  ws.on('error', (err) => process.stderr.write(`  websocket error: ${err.message}\n`));
  ws.on('close', () => {
    for (const answer of pending.values()) answer({ ok: false, error: { code: 'Closed', message: 'the WebSocket closed' } });
  });
  ws.on('message', (data) => {
    const m = wire.decode(data);
    if (m.t === 'event') onEvent(m.name, m.payload);
    else if (m.t === 'result') pending.get(m.id)?.(m.result);
    else if (m.t === 'error' && pending.has(m.id)) pending.get(m.id)({ ok: false, error: m.error });
    else if (m.t === 'error') process.stderr.write(`  server refused a message: ${m.error.message}\n`);
  });
  return {
    async call(method, input) {
      const id = nextId++;
      const result = await new Promise((resolve) => {
        pending.set(id, resolve);
        ws.send(wire.encode({ t: 'call', id, method, input }));
      });
      pending.delete(id);
      if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`);
      return result.value;
    },
    close: () => new Promise((r) => {
      ws.once('close', r);
      ws.close();
    }),
  };
}
