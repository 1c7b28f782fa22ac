#!/usr/bin/env node
// A simulated "print values over serial" board. It writes numeric lines into one end of a PTY
// pair at a steady rate, the way an Arduino sketch with Serial.println does, so tests can open
// the other end through serialport exactly as for real hardware.
//
//   node line-board.mjs --port /tmp/x/board [--rate 100] [--axes 3] [--eol crlf|lf]
//        [--sep comma|tab|space|pairs] [--header] [--rows N] [--bad-every N] [--noise 0.0]
//        [--pause-at ROW --pause-ms MS] [--pause-every MS:PAUSE_MS] [--exit-at ROW] [--burst-ms 16]
//
// --pause-at holds the stream once and then carries on where it stopped (a slow host read: no
// reading is lost). --pause-every stalls the board's loop every MS of running time for PAUSE_MS,
// and the readings due in the stall are never printed (a blocking sensor read): a real gap.
//
// On exit it prints one JSON line to stdout: {"rows", "bad" lines written, "skipped": row indices a
// bad line replaced, "gaps": [first row, rows skipped] per --pause-every stall}.
import { createWriteStream } from 'node:fs';
import { boardArgs } from './board-args.mjs';
import { exitWithReport } from './board-exit.mjs';
import { boardValue } from './line-board-values.mjs';

const o = boardArgs({
  rate: '100', axes: '3', eol: 'crlf', sep: 'comma', header: false, rows: '0', 'bad-every': '0', noise: '0',
  'pause-at': '-1', 'pause-ms': '0', 'pause-every': '', 'exit-at': '-1', 'burst-ms': '10',
});
const rate = Number(o.rate);
const axes = Number(o.axes);
const eol = o.eol === 'lf' ? '\n' : '\r\n';
const limit = Number(o.rows);
const badEvery = Number(o['bad-every']);
const noise = Number(o.noise);
const pauseAt = Number(o['pause-at']);
const pauseMs = Number(o['pause-ms']);
const exitAt = Number(o['exit-at']);
const [gapEveryMs, gapMs] = o['pause-every'] ? o['pause-every'].split(':').map(Number) : [0, 0];
if (o['pause-every'] && !(gapEveryMs > 0 && gapMs > 0)) throw new Error('--pause-every wants MS:PAUSE_MS, e.g. 2000:300');
let nextGapAt = gapEveryMs;
const gaps = []; // [first skipped row, rows skipped] per stall
const names = Array.from({ length: axes }, (_, i) => ['accX', 'accY', 'accZ', 'gyrX', 'gyrY', 'gyrZ'][i] ?? `ch${i}`);
const SEP = { comma: ',', tab: '\t', space: ' ', pairs: ',' }[o.sep];
const BAD = ['hello from setup()', 'nan,nan,nan', '1.0,2.0', '\x00\xff\xfe garbage', '1,2,3,4,5,6,7,8'];

const value = (i, a) => (noise ? Math.round((boardValue(i, a) + (Math.random() - 0.5) * noise) * 10000) / 10000 : boardValue(i, a));

const out = createWriteStream(o.port);
// The host end went away (the test unplugged the cable): stop like a board losing its USB host.
out.on('error', () => finish(true));
let row = 0;
let bad = 0;
const skipped = []; // board rows replaced by a corrupted line
let lines = 0;
let pausedUntil = 0;
let due = 0;
const t0 = performance.now();
let paused = 0;

function line(i) {
  if (o.sep === 'pairs') return names.map((n, a) => `${n}:${value(i, a)}`).join(SEP);
  return names.map((_, a) => value(i, a)).join(SEP);
}

if (o.header) out.write(names.join(SEP) + eol);
const timer = setInterval(() => {
  const now = performance.now();
  if (now < pausedUntil) return;
  due = Math.floor(((now - t0 - paused) * rate) / 1000);
  let chunk = '';
  while (row < due) {
    if (limit && row >= limit) return finish();
    if (row === exitAt) return finish(true);
    if (row === pauseAt && pausedUntil === 0) {
      pausedUntil = now + pauseMs;
      paused += pauseMs;
      break;
    }
    lines++;
    if (badEvery && lines % badEvery === 0) {
      // A corrupted reading takes its reading's slot (NaN from a sensor, a torn line); a debug
      // print ("hello from setup()") comes on top, as it does from a real sketch.
      const text = BAD[bad % BAD.length];
      chunk += text + eol;
      bad++;
      if (!text.startsWith('hello')) {
        row++;
        skipped.push(row - 1);
      }
      continue;
    }
    chunk += line(row) + eol;
    row++;
  }
  if (chunk) out.write(chunk);
  if (gapEveryMs && now - t0 >= nextGapAt) {
    // The loop stalls: the readings due meanwhile are never sent, and the schedule goes on.
    nextGapAt += gapEveryMs + gapMs;
    const skip = Math.round((gapMs * rate) / 1000);
    gaps.push([row, skip]);
    pausedUntil = now + gapMs;
    row += skip;
  }
}, Number(o['burst-ms']));

function finish(abrupt = false) {
  clearInterval(timer);
  exitWithReport(out, () => ({ rows: row, bad, skipped, gaps }), abrupt);
}
process.on('SIGTERM', () => finish());
