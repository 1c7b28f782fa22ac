#!/usr/bin/env node
// A simulated board whose motion the test controls: it prints `a,b,c` lines into one end of a PTY
// pair at a steady rate; axis 0 swings at a level the test sets (see level-board-values.mjs for
// every number it prints, a pure function of the row and the level).
//
//   node level-board.mjs --port PATH [--rate 62.5] [--axes 3] [--burst-ms 10]
//        [--level 0.5] [--schedule '[[ms, level], …]' | --schedule-file F] [--level-file F]
//        [--start-file F]
//
// --schedule: the level from each board time on (ms since the board's first row; rows are due at
//   i × 1000/rate ms, so a change lands on a known row). --schedule-file: the same JSON in a file.
// --level-file: a file holding one number, read before every burst: the test changes the level
//   while the board runs (the change lands on the first row of the next burst).
// --start-file: prints nothing until the file exists, and its row 0 is due then: a board that
//   starts when its port is opened (an Arduino resets then), so its first row is the host's first.
// On exit (SIGTERM, or the host end gone) it prints one JSON line to stdout: {"rows" written,
// "changes": [[first row, level], …]}, the board's own timeline of level changes in rows.
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { boardArgs } from './board-args.mjs';
import { exitWithReport } from './board-exit.mjs';
import { levelRow } from './level-board-values.mjs';

const o = boardArgs({ rate: '62.5', axes: '3', level: '0.5', schedule: undefined, 'schedule-file': undefined, 'level-file': undefined, 'start-file': undefined, 'burst-ms': '10' });
const rate = Number(o.rate);
const axes = Number(o.axes);
const schedule = o['schedule-file'] ? JSON.parse(readFileSync(o['schedule-file'], 'utf8')) : o.schedule ? JSON.parse(o.schedule) : [];
if (!Array.isArray(schedule) || !schedule.every((e) => Array.isArray(e) && e.length === 2 && e.every(Number.isFinite))) {
  throw new Error('--schedule wants [[ms, level], …]');
}
let level = Number(o.level);
const changes = [[0, level]];
const setLevel = (row, l) => {
  if (l === level) return;
  level = l;
  if (changes.at(-1)[0] === row) changes.at(-1)[1] = l;
  else changes.push([row, l]);
};
const fromFile = () => {
  try {
    const text = readFileSync(o['level-file'], 'utf8').trim(); // '' while a writer truncated it
    return text !== '' && Number.isFinite(Number(text)) ? Number(text) : level;
  } catch {
    return level;
  }
};

const out = createWriteStream(o.port);
out.on('error', () => finish(true)); // the host end went away (the test unplugged the cable)
let t0 = o['start-file'] ? null : performance.now();
let row = 0;
const timer = setInterval(() => {
  if (t0 === null) {
    if (!existsSync(o['start-file'])) return;
    t0 = performance.now();
  }
  const upTo = Math.floor(((performance.now() - t0) * rate) / 1000);
  if (o['level-file'] && row < upTo) setLevel(row, fromFile());
  let chunk = '';
  while (row < upTo) {
    const at = (row * 1000) / rate;
    const due = schedule.filter(([ms]) => ms <= at).at(-1);
    if (due) setLevel(row, due[1]);
    chunk += levelRow(row, level, axes).join(',') + '\r\n';
    row++;
  }
  if (chunk) out.write(chunk);
}, Number(o['burst-ms']));

function finish(abrupt = false) {
  clearInterval(timer);
  exitWithReport(out, () => ({ rows: row, changes }), abrupt);
}
process.on('SIGTERM', () => finish());
