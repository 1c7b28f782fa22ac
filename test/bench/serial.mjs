// Serial section: the live path and long recordings of a "print values over serial" board.
//
//   ceiling    a paced writer prints `i,<wobble>,9.81` lines into a socat PTY; the real CLI
//              (`capture-desk serve`: serialport, line reader, stream hub) reads the other end and
//              a contract client here takes stream.batch events off its WebSocket, as the browser's
//              live view does, checking that every line arrives with its own values. The offered
//              rate climbs in short probes until lines are lost, the core saturates or the PTY
//              pushes back (serial-ramp.mjs); the best rate is then held for 30 s, and so is one
//              step above it. Printed: the highest rate held for 30 s with 0 lost lines, serve's
//              CPU (/proc, first batch to last line), what stopped the next step, and the load
//              average. Targets: ≥ 250,000 lines/s, 0 lost, serve under one core.
//   plain path what the writer and the PTY move without the core (the writer unpaced into the PTY
//              pair, read by a process that only counts line ends, as a file and with
//              node-serialport as the core reads it), and what the writer alone makes (into
//              /dev/null): if these are near the ceiling, the PTY, serialport's read loop or the
//              writer is the limit, not the core.
//   recording  1 hour of 3 axes × 100 Hz (360,000 rows) through SensorRecorder as fast as it goes,
//              RSS after gc every 10,000 rows: growth after warm-up < 50 MB; then finish() (encode
//              + HMAC sign) < 1 s, and the file must decode to every row and verify.
//
// Knobs: CAPTURE_DESK_BENCH_SERIAL_HOLD_S (the hold, default 30; shorter holds are for trying the
// bench out and fail the ceiling's target), CAPTURE_DESK_BENCH_SERIAL_PROBE_S (each probe, default
// 4), SERIAL_BENCH_RATE=N (no ramp: hold N lines/s only), SERIAL_BENCH_CPU_PROF=DIR (run serve
// under --cpu-prof during the holds, profiles written to DIR), BENCH_CLI (another build of the CLI).
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuText, describe, findCeiling, judge } from './serial-ramp.mjs';
import { measureRecording } from './serial-recording.mjs';
import { measurePlainPath, measureStream } from './serial-stream.mjs';

const HOLD_S = Number(process.env.CAPTURE_DESK_BENCH_SERIAL_HOLD_S ?? 30);
const PROBE_S = Number(process.env.CAPTURE_DESK_BENCH_SERIAL_PROBE_S ?? 4);
const FIXED_RATE = process.env.SERIAL_BENCH_RATE ? Number(process.env.SERIAL_BENCH_RATE) : null;
const TARGET_RATE = 250_000;
const TARGET_HOLD_S = 30;
const PLAIN_S = 3;
const CORES = availableParallelism();
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const MB = 1024 * 1024;

const n = (v) => Math.round(v).toLocaleString('en-US');
const pct = (v) => `${Math.round(v)}%`;
const say = (line) => process.stderr.write(`  ${line}\n`);
const plainCpu = (c, reader = 'plain reader') =>
  `writer ${pct(c.writer)}${c.socat === null ? '' : `, socat ${pct(c.socat)}`}${c.reader === null ? '' : `, ${reader} ${pct(c.reader)}`}, kernel threads ${c.kernel === null ? 'not visible' : pct(c.kernel)}, other programs and interrupts ${pct(c.others)}; machine ${pct(c.machine)} of ${CORES * 100}%`;
const load = (l) => `load average ${l.start.toFixed(2)} → ${l.end.toFixed(2)} (1 min, ${CORES} cores)`;

function lostDetail(s) {
  return [
    `${n(s.missing.n)} of lines 1..${n(s.written - 1)} never arrived with their own values (line 0 is dropped on purpose: it may be cut)`,
    s.missing.n ? `${n(s.missing.n - s.missingAfterFirstBatch.n)} of them in the first batch (up to line ${n(s.firstBatchEnd - 1)}, rows that came before stream.start resolved), first missing line ${n(s.missing.first)}` : null,
    `${n(s.duplicates)} rows repeated another line's values, ${n(s.wrongRows)} rows matched no line, ${s.seqGaps} batches dropped by the server (seq gaps), ${s.indexGaps} firstIndex gaps`,
  ].filter(Boolean).join('; ');
}

/** What limits the ceiling, from the run one step above (or the first unheld probe) and the plain paths. */
function limitRow(ramp, { pty, serialport, alone }) {
  const failed = ramp.above ?? ramp.runs.find((r) => !r.verdict.held && r.rate > (ramp.ceiling?.rate ?? 0));
  const plainText = `without the core, the writer and the PTY moved ${n(pty.linesPerSecond)} lines/s to a plain reader and ${n(serialport.linesPerSecond)} lines/s to node-serialport's read loop alone (the core's first stage), and the writer alone made ${n(alone.linesPerSecond)} lines/s into /dev/null at ${pct(alone.cpu.writer)} of a core (rows below)`;
  if (!failed) {
    const why = FIXED_RATE ? 'not looked for: SERIAL_BENCH_RATE runs one rate, no ramp' : `every rate tried was held, the edge lies above ${n(ramp.ceiling?.rate ?? 0)} lines/s`;
    return { name: 'serial: what limits the ceiling', value: 'not reached', unit: '', target: 'named', pass: null, detail: `${why}; ${plainText}` };
  }
  const ceiling = ramp.ceiling?.rate ?? 0;
  let label = failed.verdict.limit;
  // Pushed back with no process saturated: does the same path without the core stop near it too?
  if (label === 'the PTY' || label === 'the machine') {
    const near = [['the PTY', pty], ['node-serialport on the PTY', serialport]].filter(([, p]) => p.linesPerSecond < ceiling * 1.25);
    if (near.length) label = `${near[0][0]} (the same path without the core stops within 25 % of it)`;
    else if (label === 'the machine') label = `the machine's ${CORES} cores (the PTY rig and the core together)`;
    else label = `the read path's latency, not CPU (the PTY hands over ~${n(serialport.bytesPerRead)} bytes a read; nothing saturated)`;
  }
  const others = failed.s.cpu.others;
  if (others >= 25) label += `; other programs took ${pct(others)} of a core meanwhile: measured under load`;
  return {
    name: 'serial: what limits the ceiling', value: label, unit: '', target: 'named', pass: null,
    detail: `at ${n(failed.rate)} lines/s (${failed.kind}): ${failed.verdict.why}. For comparison, ${plainText}`,
  };
}

/**
 * The core's own rate estimate against the writer's clock (the rate offered): the writer sends each
 * line when due or later, never sooner, as a board's clock would, so its average over the run
 * (lines / its time) sits below that clock whenever the PTY pushed back. That average was the
 * yardstick until 2026-12-01 and made a right estimate look 3-10 % fast.
 */
function rateRow(rate, s) {
  const hz = s.stats?.frequencyHz ?? null;
  const off = hz === null ? null : (hz / rate - 1) * 100;
  const writerAvg = s.written / (s.writer.ms / 1000);
  return { name: 'serial: the core\'s rate estimate at the ceiling (vs the writer\'s clock)', value: off === null ? 'none' : Math.round(off * 1000) / 1000, unit: '%', target: 'within ±0.5 %',
    pass: off !== null && Math.abs(off) <= 0.5,
    detail: `the core measured ${hz === null ? 'no rate' : n(Math.round(hz)) + ' Hz'} for ${n(rate)} lines/s offered; the writer's own average over its ${(s.writer.ms / 1000).toFixed(2)} s was ${n(Math.round(writerAvg))} lines/s (at most ${n(s.writer.maxLagLines)} lines behind its clock)` };
}

function ceilingRows(ramp, plain) {
  const c = ramp.ceiling;
  const shortHold = HOLD_S < TARGET_HOLD_S ? `; the hold was shortened to ${HOLD_S} s by CAPTURE_DESK_BENCH_SERIAL_HOLD_S, so this is no ${TARGET_HOLD_S} s figure` : '';
  const ladder = ramp.runs.map((r) => `${r.kind} ${describe(r)}`).join('\n    ');
  if (!c) {
    return [
      { name: `serial: ceiling (highest rate held ${HOLD_S} s, 0 lost, client attached)`, value: 0, unit: 'lines/s', target: `≥ ${n(TARGET_RATE)}`, pass: false, detail: `no rate was held${shortHold}:\n    ${ladder}` },
      limitRow(ramp, plain),
    ];
  }
  const s = c.s;
  const rows = [
    { name: `serial: ceiling (highest rate held ${HOLD_S} s, 0 lost, client attached)`, value: c.rate, unit: 'lines/s', target: `≥ ${n(TARGET_RATE)} for ${TARGET_HOLD_S} s`,
      pass: c.rate >= TARGET_RATE && HOLD_S >= TARGET_HOLD_S,
      detail: `the client got ${n(s.rowsPerSecond)} lines/s over ${(s.windowMs / 1000).toFixed(2)} s (first batch, ${n(s.firstRows)} rows, not counted); ${n(s.written)} lines offered (writer took ${(s.writer.ms / 1000).toFixed(2)} s, at most ${n(s.writer.maxLagLines)} lines behind, ${(s.writer.maxLagAtMs / 1000).toFixed(1)} s in; longest PTY push-back ${n(s.writer.maxDrainMs)} ms, longest writer stall ${n(s.writer.maxTickGapMs)} ms); the core measured ${n(s.stats?.frequencyHz ?? 0)} Hz; ${load(s.load)}${shortHold}. Runs:\n    ${ladder}` },
    { name: 'serial: lost lines at the ceiling', value: s.missing.n + s.wrongRows + s.duplicates, unit: 'lines', target: '0',
      pass: s.missing.n === 0 && s.wrongRows === 0 && s.duplicates === 0 && s.seqGaps === 0, detail: lostDetail(s) },
    rateRow(c.rate, s),
    { name: 'serial: core CPU at the ceiling (serve process)', value: Math.round(s.cpu.serve * 10) / 10, unit: '% of one core', target: '< 100% of one core', pass: s.cpu.serve < 100,
      detail: `user+system time over the ${(s.windowMs / 1000).toFixed(2)} s window; the machine over it: ${cpuText(s.cpu)}; serve RSS at the end ${(s.serveRss / MB).toFixed(0)} MB; ${load(s.load)}` },
  ];
  if (ramp.above) {
    const a = ramp.above;
    rows.push({ name: `serial: one step above (${n(a.rate)} lines/s offered, ${a.seconds} s)`, value: Math.round(a.s.rowsPerSecond), unit: 'lines/s', target: 'not held (the edge)', pass: null, detail: describe(a) });
  }
  rows.push(limitRow(ramp, plain));
  return rows;
}

function plainRows({ pty, serialport, alone }) {
  const through = (p, reader) => `${n(p.written)} written, ${n(p.received)} counted, ${n(p.bytesPerRead)} bytes a read on average; CPU ${plainCpu(p.cpu, reader)}; ${load(p.load)}`;
  return [
    { name: `serial: writer → PTY → plain reader, no core (${PLAIN_S} s)`, value: Math.round(pty.linesPerSecond), unit: 'lines/s', target: 'reference', pass: null,
      detail: `the same writer unpaced into the same socat PTY pair, read as a file by a process that only counts line ends: ${through(pty)}` },
    { name: `serial: writer → PTY → node-serialport alone, no core (${PLAIN_S} s)`, value: Math.round(serialport.linesPerSecond), unit: 'lines/s', target: 'reference', pass: null,
      detail: `the same, read with node-serialport as the core reads the port, counting line ends and nothing more: ${through(serialport, 'serialport reader')}` },
    { name: `serial: writer alone → /dev/null (${PLAIN_S} s)`, value: Math.round(alone.linesPerSecond), unit: 'lines/s', target: 'reference', pass: null,
      detail: `CPU ${plainCpu(alone.cpu)}; ${load(alone.load)}` },
  ];
}

function recordingRows(r) {
  const growth = (r.maxRss - r.warmRss) / MB;
  const decodes = r.decodedRows === r.rows && r.wrongValues === 0 && r.signed && r.signatureOk;
  return [
    { name: 'recording 1 h × 3 axes × 100 Hz: memory growth', value: Math.round(growth * 10) / 10, unit: 'MB', target: '< 50 MB', pass: growth < 50,
      detail: `RSS after gc: ${(r.warmRss / MB).toFixed(1)} MB after ${n(r.samples[0].rows)} rows, max ${(r.maxRss / MB).toFixed(1)} MB over ${r.samples.length} readings (the last after finish()); ${n(r.rows)} rows appended 10 at a time in ${(r.appendMs / 1000).toFixed(2)} s` },
    { name: 'encode + sign of that sample', value: Math.round(r.finishMs) / 1000, unit: 's', target: '< 1 s', pass: r.finishMs < 1000 && decodes,
      detail: `SensorRecorder.finish() with an HMAC key: ${(r.fileBytes / MB).toFixed(1)} MB file; decodes to ${n(r.decodedRows)} rows, ${n(r.wrongValues)} wrong values, signature ${r.signatureOk ? 'verifies' : 'does NOT verify'}` },
  ];
}

async function fixedRate(rate, cpuProfDir) {
  say(`streaming ${n(rate)} lines/s for ${HOLD_S} s through a PTY into capture-desk serve (no ramp: SERIAL_BENCH_RATE)…`);
  const s = await measureStream({ cli: CLI, rate, seconds: HOLD_S, cpuProfDir });
  const run = { kind: 'hold', rate, seconds: HOLD_S, s, verdict: judge(s, rate, HOLD_S) };
  say(describe(run));
  return { runs: [run], ceiling: run.verdict.held ? run : null, above: run.verdict.held ? null : run };
}

export async function run() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first.`);
  say(`load average now ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${CORES} cores`);
  say(`the writer and the PTY without the core, ${PLAIN_S} s each…`);
  const plain = {
    pty: await measurePlainPath({ sink: 'pty', seconds: PLAIN_S }),
    serialport: await measurePlainPath({ sink: 'serialport', seconds: PLAIN_S }),
    alone: await measurePlainPath({ sink: 'null', seconds: PLAIN_S }),
  };
  say(`plain: writer → PTY → counting reader ${n(plain.pty.linesPerSecond)} lines/s (${n(plain.pty.lost)} lost), → node-serialport ${n(plain.serialport.linesPerSecond)} lines/s (${n(plain.serialport.lost)} lost); writer alone ${n(plain.alone.linesPerSecond)} lines/s`);
  const cpuProfDir = process.env.SERIAL_BENCH_CPU_PROF;
  let ramp;
  if (FIXED_RATE) ramp = await fixedRate(FIXED_RATE, cpuProfDir);
  else {
    say(`ramp: ${PROBE_S} s probes up the rate ladder, then ${HOLD_S} s holds at the best rate and one step above…`);
    ramp = await findCeiling({ cli: CLI, probeSeconds: PROBE_S, holdSeconds: HOLD_S, cpuProfDir, say });
  }
  say(ramp.ceiling ? `ceiling: ${n(ramp.ceiling.rate)} lines/s held ${HOLD_S} s` : 'ceiling: no rate held');
  say('recording 1 h × 3 axes × 100 Hz through SensorRecorder…');
  const recording = await measureRecording();
  return [...ceilingRows(ramp, plain), ...plainRows(plain), ...recordingRows(recording)];
}
