// One recording of the fuzz board through the real CLI, shared by the integration test (short) and
// the "fuzz" bench section (30 s at 1 MB/s): fuzz-board.mjs prints into one end of a PTY pair and
// `capture-desk record serial` (serialport, line reader, stream hub, recorder, sample store)
// records the other end. The board prints clean lines until the recording has started, then fuzzes;
// once it is done and the port has drained, the CLI gets Ctrl+C (SIGINT) and saves the sample.
//
// The caller brings the PTY pair (test/support/boards/pty.ts in tests, bench/serial-procs.mjs in
// the bench) and the built CLI; this returns what happened, compared with what the board sent:
//   rows      the sample's rows against the board's log of good lines (must be the log's tail,
//             from the first recorded line to the last line sent, value for value),
//   rejected  the CLI's rejected-line counts by reason against what the generator produced,
//   rss       the CLI's resident memory (/proc) while recording, and its peak including finish,
//   cpuShare  the CLI's CPU time over the fuzz as a share of one core; saveMs, Ctrl+C to saved.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { decode } from 'cbor-x';

const BOARD = fileURLToPath(new URL('./fuzz-board.mjs', import.meta.url));
const RSS_EVERY_MS = 100;
/** After the board's last byte, time for the reader to take what is still in the PTY and socat. */
const DRAIN_MS = 500;

/**
 * @param {{ cli: string, hostPath: string, boardPath: string, seed: number, rate: number, seconds: number,
 *   longChance?: number, bursts?: boolean }} o rate in bytes/s
 */
export async function recordFuzzBoard(o) {
  const dir = await mkdtemp(join(tmpdir(), 'cd-fuzz-'));
  const logFile = join(dir, 'good-lines.txt');
  const kids = [];
  try {
    const board = spawn(process.execPath, [
      BOARD, '--port', o.boardPath, '--seed', String(o.seed), '--log', logFile, '--rate', String(o.rate), '--seconds', String(o.seconds),
      ...(o.longChance === undefined ? [] : ['--long-chance', String(o.longChance)]), ...(o.bursts ? ['--bursts'] : []),
    ], { stdio: ['pipe', 'pipe', 'pipe'] });
    kids.push(board);
    const boardErr = collect(board.stderr);
    const boardDone = new Promise((resolve, reject) => {
      createInterface({ input: board.stdout }).on('line', (l) => {
        const e = JSON.parse(l);
        if (e.event === 'done') resolve(e);
      });
      board.once('exit', (code) => reject(new Error(`fuzz board (seed ${o.seed}) exited with ${code} before it was done: ${boardErr()}`)));
    });
    boardDone.catch(() => undefined);

    // --frequency: the rate of a fuzzed stream is not what is under test here.
    const cli = spawn(process.execPath, [
      o.cli, 'record', 'serial', '--port', o.hostPath, '--frequency', '200', '--length-ms', '3600000', '--label', 'fuzz', '--data-dir', join(dir, 'data'),
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    kids.push(cli);
    const cliOut = collect(cli.stdout);
    const cliErr = collect(cli.stderr);
    const cliExit = new Promise((resolve) => cli.once('close', (code, signal) => resolve({ code, signal })));
    await until(() => /Recording \d+ ms/.test(cliErr()), 20_000, () => `the CLI did not start recording: ${cliErr()}`, cliExit);

    const rss = { samples: [], during: [] };
    let recording = true;
    const poll = setInterval(async () => {
      const v = await rssOf(cli.pid);
      if (v === null) return;
      rss.samples.push(v);
      if (recording) rss.during.push(v);
    }, RSS_EVERY_MS);
    const base = await rssOf(cli.pid);

    const cpu0 = await cpuOf(cli.pid);
    const t0 = performance.now();
    board.stdin.write('go\n');
    const done = await Promise.race([boardDone, timeout((o.seconds + 60) * 1000, `the fuzz board (seed ${o.seed}) did not finish`)]);
    await new Promise((r) => setTimeout(r, DRAIN_MS));
    recording = false;
    const cpuShare = ((await cpuOf(cli.pid)) - cpu0) / ((performance.now() - t0) / 1000);
    const saveStart = performance.now();
    cli.kill('SIGINT');
    const exit = await Promise.race([cliExit, timeout(120_000, 'the CLI did not save the sample within 120 s of Ctrl+C')]);
    const saveMs = performance.now() - saveStart;
    clearInterval(poll);
    board.stdin.end();

    const stderr = cliErr();
    const sample = exit.code === 0 ? JSON.parse(cliOut().trim().split('\n').at(-1)) : null;
    const values = sample ? decode(await readFile(sample.file)).payload.values : [];
    const log = (await readFile(logFile, 'utf8')).split('\n').filter(Boolean);
    return {
      seed: o.seed, board: done, exit, stderr, sample,
      rows: compareRows(values, log, done),
      rejected: { total: sample?.rejected_lines ?? null, byReason: byReason(stderr), inSample: sample?.rejected_by_reason ?? null },
      rss: { base, maxDuring: Math.max(base ?? 0, ...rss.during), peak: Math.max(base ?? 0, ...rss.samples), readings: rss.samples.length },
      /** The CLI's CPU time over the fuzz and drain, as a share of one core; how long Ctrl+C → saved took. */
      cpuShare, saveMs,
    };
  } finally {
    for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The sample must hold the board's good lines from the first one recorded to the last one sent,
 * each with its values: line k of the log is `k,a,b`, so the first row names where to start.
 */
function compareRows(values, log, done) {
  const first = values.length ? values[0][0] : null;
  const fuzzFirst = done.goodRows - done.expected.rows; // good lines sent before "go"
  let wrong = 0;
  let firstWrong = null;
  const n = Math.min(values.length, first === null ? 0 : log.length - first);
  for (let i = 0; i < n; i++) {
    const want = log[first + i].split(',').map(Number);
    const got = values[i];
    if (got.length !== want.length || got.some((v, a) => v !== want[a])) {
      wrong++;
      firstWrong ??= { row: i, got, want: log[first + i] };
    }
  }
  return {
    recorded: values.length, sent: log.length, first, fuzzFirst,
    /** Good lines sent after the first recorded one that are not in the sample (or extra rows). */
    missing: first === null ? log.length - fuzzFirst : log.length - first - values.length,
    wrong, firstWrong,
  };
}

/** The CLI's summary on stderr: "… N rejected lines (text: 3, nan: 4; last: …)". */
function byReason(stderr) {
  const m = /rejected lines \(([^;)]*)/.exec(stderr);
  const out = {};
  for (const part of m ? m[1].split(', ') : []) {
    const [k, n] = part.split(': ');
    out[k] = Number(n);
  }
  return out;
}

async function rssOf(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  } catch {
    return null; // gone
  }
}

const CLK_TCK = 100; // Linux USER_HZ

/** User + system CPU seconds of a process so far. */
async function cpuOf(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

function collect(stream) {
  let s = '';
  stream.setEncoding('utf8').on('data', (d) => (s += d));
  return () => s;
}

async function until(cond, ms, why, exited) {
  let gone = false;
  void exited.then(() => (gone = true));
  const end = Date.now() + ms;
  while (!cond()) {
    if (gone || Date.now() > end) throw new Error(why());
    await new Promise((r) => setTimeout(r, 20));
  }
}

function timeout(ms, why) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(why)), ms).unref());
}
