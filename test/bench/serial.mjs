// Serial section: the live path and long recordings of a "print values over serial" board.
//
//   stream     a paced writer prints `i,<wobble>,9.81` lines into a socat PTY; the real CLI
//              (`capture-desk serve`: serialport, line reader, stream hub) reads the other end and
//              a contract client here takes stream.batch events off its WebSocket, checking that
//              every line arrives with its own values. Targets: ≥ 100,000 lines/s sustained for
//              30 s, 0 lost lines, the serve process under 50% of one core (/proc CPU time over the
//              window from the first batch to the last line).
//   recording  1 hour of 3 axes × 100 Hz (360,000 rows) through SensorRecorder as fast as it goes,
//              RSS after gc every 10,000 rows: growth after warm-up < 50 MB; then finish() (encode
//              + HMAC sign) < 1 s, and the file must decode to every row and verify.
//
// The writer offers slightly more than the target (SERIAL_BENCH_RATE, default 105,000 lines/s) so
// that timer granularity at the ends of the window cannot fail a pipeline that keeps up; a core
// that falls behind shows as a lower delivered rate (the PTY pushes back on the writer).
// Knobs: SERIAL_BENCH_SECONDS (default 30), SERIAL_BENCH_RATE, SERIAL_BENCH_CPU_PROF=DIR (run
// serve under --cpu-prof, profile written to DIR), BENCH_CLI (another build of the CLI).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { measureRecording } from './serial-recording.mjs';
import { measureStream } from './serial-stream.mjs';

const SECONDS = Number(process.env.SERIAL_BENCH_SECONDS ?? 30);
const RATE = Number(process.env.SERIAL_BENCH_RATE ?? 105_000);
const TARGET_RATE = 100_000;
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const MB = 1024 * 1024;

const n = (v) => Math.round(v).toLocaleString('en-US');
const pct = (v) => `${v.toFixed(1)}%`;
const say = (line) => process.stderr.write(`  ${line}\n`);

function streamRows(s) {
  const window = s.windowMs / 1000;
  const lostDetail = [
    `${n(s.missing.n)} of lines 1..${n(s.written - 1)} never arrived with their own values (line 0 is dropped on purpose: it may be cut)`,
    s.missing.n ? `${n(s.missing.n - s.missingAfterFirstBatch.n)} of them in the first batch (up to line ${n(s.firstBatchEnd - 1)}, rows that came before stream.start resolved), first missing line ${n(s.missing.first)}` : null,
    `${n(s.duplicates)} rows repeated another line's values, ${n(s.wrongRows)} rows matched no line, ${s.seqGaps} batches dropped by the server (seq gaps), ${s.indexGaps} firstIndex gaps`,
  ].filter(Boolean).join('; ');
  return [
    { name: `serial: PTY → core → WebSocket client (lines/s, ${SECONDS} s)`, value: Math.round(s.rowsPerSecond), unit: 'lines/s', target: `≥ ${n(TARGET_RATE)}`,
      pass: s.rowsPerSecond >= TARGET_RATE && window >= SECONDS * 0.95,
      detail: `${n(s.written)} lines offered at ${n(RATE)}/s (writer took ${(s.writer.ms / 1000).toFixed(2)} s, at most ${n(s.writer.maxLagLines)} lines behind, ${(s.writer.maxLagAtMs / 1000).toFixed(1)} s in; longest PTY push-back ${n(s.writer.maxDrainMs)} ms, longest writer stall ${n(s.writer.maxTickGapMs)} ms); ${n(s.rows)} rows in ${n(s.batches)} batches over ${window.toFixed(2)} s, first batch (${n(s.firstRows)} rows) not counted; the core measured ${n(s.stats?.frequencyHz ?? 0)} Hz` },
    { name: 'serial: lost lines', value: s.missing.n, unit: 'lines', target: '0', pass: s.missing.n === 0 && s.wrongRows === 0 && s.duplicates === 0 && s.seqGaps === 0,
      detail: lostDetail },
    { name: 'serial: core CPU (serve process)', value: Math.round(s.cpu.serve * 10) / 10, unit: '% of one core', target: '< 50% of one core', pass: s.cpu.serve < 50,
      detail: `user+system time over the ${window.toFixed(2)} s window; for reference socat ${pct(s.cpu.socat)}, writer ${pct(s.cpu.writer)} (2 cores shared by all); serve RSS at the end ${(s.serveRss / MB).toFixed(0)} MB` },
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

export async function run() {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "npm run build" first.`);
  say(`streaming ${n(RATE)} lines/s for ${SECONDS} s through a PTY into capture-desk serve…`);
  const cpuProfDir = process.env.SERIAL_BENCH_CPU_PROF;
  const stream = await measureStream({ cli: CLI, rate: RATE, seconds: SECONDS, cpuProfDir });
  say(`stream: ${n(stream.rowsPerSecond)} lines/s, ${n(stream.missing.n)} missing, serve ${pct(stream.cpu.serve)} of a core${cpuProfDir ? `; profile in ${cpuProfDir}` : ''}`);
  say('recording 1 h × 3 axes × 100 Hz through SensorRecorder…');
  const recording = await measureRecording();
  return [...streamRows(stream), ...recordingRows(recording)];
}
