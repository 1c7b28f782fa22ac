// Helper of the "serial" bench section (no `run` export, nothing happens on import): lines from a
// paced writer → socat PTY → `capture-desk serve` (serialport, line reader, stream hub) → its
// WebSocket → a contract client here, which checks every row's line index as it arrives; and the
// same writer and PTY with the plainest reader instead of the core (measurePlainPath).
import { fork } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectClient, kernelShare, machineStat, openPtyPair, procStat, startServe } from './serial-procs.mjs';
import { INDEX_WRAP } from './serial-writer.mjs';

const WRITER = fileURLToPath(new URL('./serial-writer.mjs', import.meta.url));
const PLAIN_READER = fileURLToPath(new URL('./serial-pty-reader.mjs', import.meta.url));
/** How long the tail of the stream may take to arrive after the writer finished. */
const DRAIN_MS = 10_000;

/**
 * Checks each batch against the writer's lines: a row counts as line i only if all three values are
 * exactly what line i said (Float32), so a row with stale or mixed-up values counts as a wrong row,
 * not as a line received. `seen` marks every line received right. Lines print their index modulo
 * 2^24 (see serial-writer.mjs); rows come in order, so the full index is the one nearest the last.
 */
export function rowChecker(sourceId, total) {
  const second = (i) => Math.fround(((i % 2000) - 1000) / 1000);
  const third = Math.fround(9.81);
  const s = { seen: new Uint8Array(total), batches: 0, rows: 0, wrongRows: 0, duplicates: 0, seqGaps: 0, indexGaps: 0, firstAt: 0, lastAt: 0, firstRows: 0, firstBatchEnd: 0, maxLine: -1, stats: null };
  let nextSeq = null;
  let nextFirst = null;
  let last = 0; // full index of the last row read
  s.onBatch = (b) => {
    if (b.sourceId !== sourceId) return;
    const now = performance.now();
    const w = b.axisCount;
    const rows = b.values.length / w;
    if (nextSeq !== null && b.seq !== nextSeq) s.seqGaps += b.seq - nextSeq;
    if (nextFirst !== null && b.firstIndex !== nextFirst) s.indexGaps++;
    nextSeq = b.seq + 1;
    nextFirst = b.firstIndex + rows;
    for (let r = 0; r < rows; r++) {
      const v = b.values;
      const wrapped = v[r * w];
      let i = -1;
      if (Number.isInteger(wrapped) && wrapped >= 0 && wrapped < INDEX_WRAP) {
        i = last - (last % INDEX_WRAP) + wrapped;
        if (i < last - INDEX_WRAP / 2) i += INDEX_WRAP;
        else if (i > last + INDEX_WRAP / 2 && i >= INDEX_WRAP) i -= INDEX_WRAP;
        last = i;
      }
      if (w !== 3 || !(i >= 0 && i < total) || v[r * w + 1] !== second(i) || v[r * w + 2] !== third) s.wrongRows++;
      else if (s.seen[i]) s.duplicates++;
      else {
        s.seen[i] = 1;
        if (i > s.maxLine) s.maxLine = i;
      }
    }
    if (s.rows === 0) {
      s.firstAt = now;
      s.firstRows = rows;
      s.firstBatchEnd = s.maxLine + 1;
      s.onFirst?.();
    }
    s.batches++;
    s.rows += rows;
    s.lastAt = now;
    s.onProgress?.();
  };
  /** Lines in [from, to) never received right, and the first of them. */
  s.missing = (from, to) => {
    let n = 0;
    let first = -1;
    for (let i = from; i < to; i++) if (!s.seen[i]) (n++, first < 0 && (first = i));
    return { n, first };
  };
  return s;
}

/** Forks the paced line writer (serial-writer.mjs) on the PTY's board end; it writes once told to go. */
export function startWriter(board, rate, seconds) {
  const child = fork(WRITER, [board, String(rate), String(seconds)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const message = (type) => new Promise((resolve, reject) => {
    const onMessage = (m) => m.type === type && (child.off('message', onMessage), resolve(m));
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`line writer exited with ${code} before '${type}'`)));
  });
  const done = message('done');
  done.catch(() => {}); // awaited later; an early exit is reported by whichever wait comes first
  return { pid: child.pid, ready: message('ready'), done, go: () => child.send({ type: 'go' }), kill: () => child.kill() };
}

const cpuShare = (a, b, ms) => (a && b ? ((b.cpuSeconds - a.cpuSeconds) / (ms / 1000)) * 100 : NaN);

/**
 * Streams `rate` lines/s for `seconds` and returns what arrived: received rows and their rate
 * (first batch to last, rows of the first batch not counted), lost lines, CPU shares of serve,
 * socat and the writer over the same window. `cpuProfDir`: run serve under --cpu-prof.
 */
export async function measureStream({ cli, rate, seconds, cpuProfDir }) {
  const tmp = await mkdtemp(join(tmpdir(), 'capture-desk-bench-serial-'));
  const cleanup = [() => rm(tmp, { recursive: true, force: true })];
  try {
    await mkdir(join(tmp, 'data'));
    const pty = await openPtyPair(tmp);
    cleanup.unshift(() => pty.close());
    const serve = await startServe(cli, join(tmp, 'data'), cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []);
    cleanup.unshift(() => serve.stop());
    const sourceId = `serial:${pty.host}`;
    const total = Math.round(rate * seconds);
    const check = rowChecker(sourceId, total);
    const client = await connectClient(serve.wsUrl, (name, p) => {
      if (name === 'stream.batch') check.onBatch(p);
      else if (name === 'stream.stats' && p.sourceId === sourceId) check.stats = p;
    });
    cleanup.unshift(() => client.close());
    const writer = startWriter(pty.board, rate, seconds);
    cleanup.unshift(() => writer.kill());
    await writer.ready;

    const pids = { serve: serve.pid, socat: pty.pid };
    const sample = async () => ({
      at: performance.now(),
      bench: process.cpuUsage(),
      machine: await machineStat(),
      load: loadavg()[0],
      ...Object.fromEntries(await Promise.all(Object.entries(pids).map(async ([k, pid]) => [k, await procStat(pid)]))),
    });
    let before = null;
    check.onFirst = () => void sample().then((s) => (before = s));

    await client.call('serial.addPath', { path: pty.host });
    const started = client.call('stream.start', { sourceId });
    await new Promise((r) => setTimeout(r, 300)); // let serve open the port before the first line
    writer.go();
    const info = await started;
    const wrote = await Promise.race([writer.done, new Promise((_, reject) => {
      const t = setTimeout(() => reject(new Error(`the writer was still not done ${seconds + 30} s after it started: is serve reading the port? ${serve.stderr().trim().split('\n').slice(-3).join(' | ')}`)), (seconds + 30) * 1000);
      writer.done.then(() => clearTimeout(t), () => clearTimeout(t));
    })]);
    const end = wrote.written;
    const after = await new Promise((resolve) => {
      const timer = setTimeout(() => void sample().then(resolve), DRAIN_MS);
      check.onProgress = () => {
        if (check.maxLine < end - 1) return;
        clearTimeout(timer);
        check.onProgress = null;
        void sample().then(resolve);
      };
      check.onProgress?.();
    });
    await client.call('stream.stop', { sourceId });
    if (!before) throw new Error(`no stream.batch arrived; serve said: ${serve.stderr().trim().split('\n').slice(-5).join(' | ')}`);
    const windowMs = after.at - before.at;
    const cpu = {
      serve: cpuShare(before.serve, after.serve, windowMs),
      socat: cpuShare(before.socat, after.socat, windowMs),
      writer: (wrote.cpuMs / wrote.ms) * 100,
      /** This process: the WebSocket client and its checks. */
      bench: ((after.bench.user + after.bench.system - (before.bench.user + before.bench.system)) / 1000 / windowMs) * 100,
      /** Every core of the machine, anything running. */
      machine: cpuShare({ cpuSeconds: before.machine.busy }, { cpuSeconds: after.machine.busy }, windowMs),
      /** The kernel's own threads (the PTY's bytes are moved by kworkers), null if /proc shows none. */
      kernel: kernelShare(before.machine, after.machine, windowMs),
    };
    /** The rest of the machine's busy time: other programs, interrupts (the writer's share is its own whole run). */
    cpu.others = Math.max(0, cpu.machine - cpu.serve - cpu.socat - cpu.writer - cpu.bench - (cpu.kernel ?? 0));
    // Line 0 is cut on purpose (the reader drops the first line after opening: it may be partial).
    const missing = check.missing(1, end);
    const missingAfterFirstBatch = check.missing(Math.max(1, check.firstBatchEnd), end);
    const { seen: _, onBatch: _b, onFirst: _f, onProgress: _p, missing: _m, ...received } = check;
    return {
      info, written: end, writer: wrote, ...received, missing, missingAfterFirstBatch, windowMs,
      rowsPerSecond: (check.rows - check.firstRows) / ((check.lastAt - check.firstAt) / 1000),
      cpu,
      load: { start: before.load, end: after.load },
      serveRss: after.serve?.rss ?? null,
    };
  } finally {
    for (const step of cleanup) await Promise.resolve().then(step).catch(() => {});
  }
}

/**
 * The writer without the core: lines as fast as `sink` takes them for `seconds` ("max" rate).
 * sink 'pty': into the socat PTY pair with the plainest reader on the core's end (serial-pty-reader.mjs),
 * i.e. what the writer and the PTY can move on this machine; 'serialport': the same read by
 * node-serialport as the core reads it, and nothing more; 'null': into /dev/null, i.e. what the
 * writer alone can make. Returns lines/s, lines the reader counted, and CPU shares.
 */
export async function measurePlainPath({ sink, seconds }) {
  const tmp = await mkdtemp(join(tmpdir(), 'capture-desk-bench-serial-plain-'));
  const cleanup = [() => rm(tmp, { recursive: true, force: true })];
  try {
    let path = '/dev/null';
    let reader = null;
    let socatPid = null;
    if (sink === 'pty' || sink === 'serialport') {
      const pty = await openPtyPair(tmp);
      cleanup.unshift(() => pty.close());
      path = pty.board;
      socatPid = pty.pid;
      const child = fork(PLAIN_READER, [pty.host, sink === 'pty' ? 'plain' : 'serialport'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      cleanup.unshift(() => child.kill('SIGKILL'));
      const message = (type) => new Promise((resolve, reject) => {
        const on = (m) => m.type === type && (child.off('message', on), resolve(m));
        child.on('message', on);
        child.once('exit', (code) => reject(new Error(`PTY reader exited with ${code} before '${type}'`)));
      });
      await message('ready');
      reader = { child, message };
    }
    const writer = startWriter(path, 'max', seconds);
    cleanup.unshift(() => writer.kill());
    await writer.ready;
    const before = { machine: await machineStat(), socat: socatPid && (await procStat(socatPid)), load: loadavg()[0] };
    writer.go();
    const wrote = await writer.done;
    let got = null;
    if (reader) {
      const done = reader.message('done');
      reader.child.send({ type: 'expect', lines: wrote.written });
      const late = setTimeout(() => reader.child.send({ type: 'report' }), DRAIN_MS);
      got = await done;
      clearTimeout(late);
    }
    const after = { machine: await machineStat(), socat: socatPid && (await procStat(socatPid)), load: loadavg()[0] };
    const ms = wrote.ms;
    const cpu = {
      writer: (wrote.cpuMs / ms) * 100,
      reader: got ? (got.cpuMs / ms) * 100 : null,
      socat: socatPid ? cpuShare(before.socat, after.socat, ms) : null,
      machine: cpuShare({ cpuSeconds: before.machine.busy }, { cpuSeconds: after.machine.busy }, ms),
      kernel: kernelShare(before.machine, after.machine, ms),
    };
    cpu.others = Math.max(0, cpu.machine - cpu.writer - (cpu.reader ?? 0) - (cpu.socat ?? 0) - (cpu.kernel ?? 0));
    return {
      sink, seconds, written: wrote.written, ms, linesPerSecond: wrote.written / (ms / 1000),
      received: got?.lines ?? null, lost: got ? wrote.written - got.lines : null,
      /** Bytes the reader got per read (per 'data' chunk): what the PTY hands over at a time. */
      bytesPerRead: got?.reads ? got.bytes / got.reads : null,
      cpu,
      load: { start: before.load, end: after.load },
    };
  } finally {
    for (const step of cleanup) await Promise.resolve().then(step).catch(() => {});
  }
}
