#!/usr/bin/env node
// A board that prints good numeric lines for a while, then only noise: a loose wire, a baud
// mismatch or a crashed sketch. What the issue-13 reporter saw: the rate cannot be measured from
// such a stream, yet every good row must be kept.
//
//   node numbers-then-garbage.mjs --port /tmp/x/board [--rate 100] [--good-ms 2000]
//
// Good rows are boardValue(i, a) for i = 0, 1, 2…, so a test can check each kept row. On exit
// (SIGTERM) it prints {"rows": good rows written} on stdout.
import { createWriteStream } from 'node:fs';
import { boardArgs } from './board-args.mjs';
import { boardValue } from './line-board-values.mjs';

const o = boardArgs({ rate: '100', 'good-ms': '2000' });
const rate = Number(o.rate);
const goodMs = Number(o['good-ms']);
const out = createWriteStream(o.port);
out.on('error', () => finish());
const t0 = performance.now();
let row = 0;
const timer = setInterval(() => {
  const elapsed = performance.now() - t0;
  let chunk = '';
  if (elapsed < goodMs) {
    const due = Math.floor((elapsed * rate) / 1000);
    for (; row < due; row++) chunk += `${boardValue(row, 0)},${boardValue(row, 1)},${boardValue(row, 2)}\r\n`;
  } else {
    // Noise: random high bytes cut into short lines (about 1000 a second), never a clean row of
    // numbers. Garbage outnumbering good lines is what makes the reader give up on the rate.
    const bytes = Buffer.alloc(200);
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 20 === 19 ? 0x0a : 0x80 + Math.floor(Math.random() * 0x7f);
    chunk = bytes.toString('latin1');
  }
  if (chunk) out.write(Buffer.from(chunk, 'latin1'));
}, 10);

function finish() {
  clearInterval(timer);
  process.stdout.write(JSON.stringify({ rows: row }) + '\n');
  process.exit(0);
}
process.on('SIGTERM', finish);
