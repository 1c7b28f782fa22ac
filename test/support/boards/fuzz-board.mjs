#!/usr/bin/env node
// A misbehaving "print values over serial" board on one end of a PTY pair (a child process: writing
// into a PTY from the process that reads the other end deadlocks). It prints the seeded stream of
// fuzz-lines.mjs: good readings mixed with text, NaNs, wrong widths, binary, NUL runs, over-long
// lines, blank lines and every line ending, in bursts, at up to --rate bytes/s.
//
//   node fuzz-board.mjs --port PATH --seed N --log FILE [--rate BYTES_PER_S] [--seconds S]
//        [--prelude-hz 200] [--bursts] [--long-chance P (a piece is an over-long line; default 1/20000)]
//
// Until it reads "go" on stdin it prints only good lines at --prelude-hz, so a recorder can settle
// the width and start; then it fuzzes for --seconds. Every good line it prints, prelude included, is
// appended to --log as `k,a,b` in the order sent: the exact list a recording must hold the end of.
// When done it prints one JSON line, {"event":"done", seed, bytes, ms, fuzzBytes, expected (what
// the reader must report for the fuzz part: rows, blank, bad by reason), counts (pieces by kind),
// goodRows (all, prelude included), maxDrainMs}, and keeps the port open (closing it would look
// like an unplug) until stdin ends or SIGTERM.
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { boardArgs } from './board-args.mjs';
import { prng } from '../seeded-random.mjs';
import { FuzzLines } from './fuzz-lines.mjs';

const o = boardArgs({ seed: undefined, log: undefined, rate: '1000000', seconds: '30', 'prelude-hz': '200', bursts: false, 'long-chance': String(1 / 20000) });
if (!o.seed || !o.log) throw new Error('--seed and --log are required');
const seed = Number(o.seed);
const rate = Number(o.rate);
const seconds = Number(o.seconds);
const preludeHz = Number(o['prelude-hz']);
const SLICE_MS = 5;
/** Most bytes per write, so one burst after a hold stays a reasonable chunk. */
const MAX_WRITE = 256 * 1024;

const gen = new FuzzLines(seed, { longChance: Number(o['long-chance']) });
const pace = prng(seed ^ 0x9e3779b9); // timing only: the bytes depend on the seed alone
const out = createWriteStream(o.port);
const log = createWriteStream(o.log);
out.on('error', (err) => {
  process.stderr.write(`fuzz-board: ${err.message}\n`);
  process.exit(2);
});

let phase = 'prelude';
const t0 = performance.now();
let sent = 0; // prelude: lines; fuzz: bytes
let waiting = false;
let holdUntil = 0;
let maxDrainMs = 0;
let fuzzStart = 0;
let bytesAtGo = 0;
let countsAtGo = null;
let expectedAtGo = null;

function take(piece, parts, rows) {
  parts.push(piece.bytes);
  if (piece.row) rows.push(piece.row.join(','));
  return piece.bytes.length;
}

function send(parts, rows) {
  if (rows.length) log.write(rows.join('\n') + '\n');
  if (!parts.length) return;
  if (!out.write(Buffer.concat(parts))) {
    waiting = true;
    const since = performance.now();
    out.once('drain', () => {
      maxDrainMs = Math.max(maxDrainMs, performance.now() - since);
      waiting = false;
    });
  }
}

const timer = setInterval(() => {
  if (waiting) return;
  const now = performance.now();
  const parts = [];
  const rows = [];
  if (phase === 'prelude') {
    const due = Math.floor(((now - t0) * preludeHz) / 1000);
    for (; sent < due; sent++) take(gen.good(), parts, rows);
    return send(parts, rows);
  }
  if (now - fuzzStart >= seconds * 1000) return finish();
  if (now < holdUntil) return;
  // Bursts: now and then hold back for 20–200 ms, then everything due goes out at once.
  if (o.bursts && pace() < 0.01) {
    holdUntil = now + 20 + pace() * 180;
    return;
  }
  const due = Math.floor(((now - fuzzStart) * rate) / 1000);
  let bytes = 0;
  while (sent < due && bytes < MAX_WRITE) {
    const n = take(gen.next(), parts, rows);
    sent += n;
    bytes += n;
  }
  send(parts, rows);
}, SLICE_MS);

createInterface({ input: process.stdin }).on('line', (l) => {
  if (l.trim() !== 'go' || phase !== 'prelude') return;
  phase = 'fuzz';
  fuzzStart = performance.now();
  sent = 0;
  bytesAtGo = gen.bytes;
  countsAtGo = { ...gen.counts };
  expectedAtGo = gen.expected();
}).on('close', () => process.exit(0));

function finish() {
  clearInterval(timer);
  const e = gen.expected();
  const b0 = expectedAtGo ?? { rows: 0, blank: 0, bad: Object.fromEntries(Object.keys(e.bad).map((k) => [k, 0])) };
  const counts = Object.fromEntries(Object.entries(gen.counts).map(([k, n]) => [k, n - (countsAtGo?.[k] ?? 0)]));
  const expected = { rows: e.rows - b0.rows, blank: e.blank - b0.blank, bad: Object.fromEntries(Object.entries(e.bad).map(([k, n]) => [k, n - b0.bad[k]])) };
  const ms = Math.round(performance.now() - fuzzStart);
  // Say done only once the port has taken every byte and the log is on disk.
  const flushed = () => {
    if (out.writableLength > 0) return void setTimeout(flushed, SLICE_MS);
    log.end(() => {
      const report = { event: 'done', seed, bytes: gen.bytes, fuzzBytes: gen.bytes - bytesAtGo, ms, expected, counts, goodRows: gen.goodRows, maxDrainMs: Math.round(maxDrainMs) };
      process.stdout.write(JSON.stringify(report) + '\n');
    });
  };
  flushed();
}
process.on('SIGTERM', () => process.exit(0));
