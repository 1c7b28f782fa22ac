// Fuzz section: a misbehaving board for 30 s at 1 MB/s through the real CLI.
//
// test/support/boards/fuzz-board.mjs prints a seeded mix of good readings, text, NaNs, wrong widths,
// binary, NUL runs, over-long lines (64–160 KiB without an ending), blank lines and \n / \r\n / lone
// \r endings, in bursts, into a socat PTY; `capture-desk record serial` records the other end (see
// test/support/boards/fuzz-record.mjs). Targets:
//   - the CLI exits 0 and the sample holds every good line sent after the first recorded one, in
//     order, value for value (0 missing or altered);
//   - rejected lines by reason equal what the generator produced;
//   - RSS growth of the CLI while recording < 40 MB (the framing holds at most one 64 KiB line, the
//     recorder streams rows to disk);
//   - the pipeline takes ≥ 90% of the bytes offered (a slower reader makes the PTY push back on the
//     board, which then falls behind).
// Knobs: FUZZ_BENCH_SECONDS (default 30), FUZZ_BENCH_RATE (bytes/s, default 1,000,000), FUZZ_SEED
// (default: a new seed, printed; rerun a failure with it).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { recordFuzzBoard } from '../support/boards/fuzz-record.mjs';
import { openPtyPair } from './serial-procs.mjs';

const SECONDS = Number(process.env.FUZZ_BENCH_SECONDS ?? 30);
const RATE = Number(process.env.FUZZ_BENCH_RATE ?? 1_000_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 1_000_000;
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const MB = 1024 * 1024;
const n = (v) => Math.round(v).toLocaleString('en-US');

export async function run() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first`);
  process.stderr.write(`  fuzz seed ${SEED} (rerun with FUZZ_SEED=${SEED}), ${n(RATE)} bytes/s for ${SECONDS} s\n`);
  const dir = await mkdtemp(join(tmpdir(), 'capture-desk-bench-fuzz-'));
  const pty = await openPtyPair(dir);
  let r;
  try {
    r = await recordFuzzBoard({ cli: CLI, hostPath: pty.host, boardPath: pty.board, seed: SEED, rate: RATE, seconds: SECONDS, bursts: true });
  } finally {
    await pty.close();
    await rm(dir, { recursive: true, force: true });
  }
  const b = r.board;
  const e = b.expected;
  const secs = b.ms / 1000;
  const expectedTotal = Object.values(e.bad).reduce((x, y) => x + y, 0);
  const { partial = 0, ...byReason } = r.rejected.byReason;
  const wantByReason = Object.fromEntries(Object.entries(e.bad).filter(([, v]) => v > 0));
  const countsRight = r.rejected.total === expectedTotal && JSON.stringify(sorted(byReason)) === JSON.stringify(sorted(wantByReason)) && partial <= 1;
  const lost = r.rows.missing + r.rows.wrong;
  const growth = (r.rss.maxDuring - r.rss.base) / MB;
  const taken = b.fuzzBytes / secs;
  const fmt = (o) => Object.entries(o).map(([k, v]) => `${k} ${n(v)}`).join(', ');
  const crashed = r.exit.code !== 0;
  return [
    { name: `fuzz: good rows kept (seed ${SEED})`, value: crashed ? 'crashed' : lost, unit: crashed ? '' : 'missing or altered', target: '0, exit 0', pass: !crashed && lost === 0 && r.rows.first !== null && r.rows.first <= r.rows.fuzzFirst,
      detail: `${n(r.rows.recorded)} rows recorded (${n(e.rows / secs)} good rows/s offered), the board's good lines ${n(r.rows.first ?? 0)}..${n(r.rows.sent - 1)}` +
        (crashed ? `; CLI exit ${JSON.stringify(r.exit)}: ${r.stderr.trim().slice(-500)}` : '') + (r.rows.firstWrong ? `; first wrong: ${JSON.stringify(r.rows.firstWrong)}` : '') },
    { name: 'fuzz: rejected lines by reason', value: r.rejected.total ?? '-', unit: 'lines', target: `= generator (${n(expectedTotal)})`, pass: countsRight,
      detail: `CLI: ${fmt(r.rejected.byReason)}; generator: ${fmt(e.bad)} (garbage = ${n(b.counts.garbage)} binary + ${n(b.counts.nul)} NUL), ${n(e.blank)} blank lines (not rejections)` },
    { name: 'fuzz: CLI memory growth while recording', value: Math.round(growth * 10) / 10, unit: 'MB', target: '< 40 MB', pass: growth < 40,
      detail: `RSS ${(r.rss.base / MB).toFixed(1)} MB when the fuzz began, max ${(r.rss.maxDuring / MB).toFixed(1)} MB until Ctrl+C, peak ${(r.rss.peak / MB).toFixed(1)} MB including the save (${(r.saveMs / 1000).toFixed(1)} s for ${n(r.rows.recorded)} rows); ${r.rss.readings} readings` },
    { name: `fuzz: bytes taken (offered ${n(RATE)}/s)`, value: Math.round(taken), unit: 'bytes/s', target: `≥ ${n(RATE * 0.9)}`, pass: taken >= RATE * 0.9,
      detail: `${(b.fuzzBytes / MB).toFixed(1)} MB in ${secs.toFixed(1)} s, ${n((e.rows + expectedTotal + e.blank) / secs)} lines/s; longest PTY push-back ${n(b.maxDrainMs)} ms; CLI CPU ${(r.cpuShare * 100).toFixed(0)}% of one core (2 cores shared by all)` },
  ];
}

function sorted(o) {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
