#!/usr/bin/env node
// A simulated board running Nordic's data forwarder sample (sdk-edge-ai), written from the protocol
// digest: CBOR messages in COBS frames (nordic-wire.mjs) into one end of a PTY pair, one sensor-data
// message per sample with its seq and ts, and the session info at start and every --si-every-ms.
//
//   node nordic-board.mjs --port /tmp/x/board [--rate 100] [--channels 6] [--crc on|off]
//        [--values int32|float] [--lengths indefinite|definite] [--si-every-ms 5000] [--first-si-ms 0]
//        [--sid N] [--name "nRF DataFwd"] [--st 1] [--rows N] [--burst-ms 10]
//        [--drop-every N:K] [--lose-every N:K] [--garbage-every N] [--reboot-at SEQ] [--ascii]
//        [--ts-hz HZ]
//
// --drop-every N:K   the board's ring buffer overflows: every N samples, K samples are dropped before
//                    sending (their seq numbers never go out) and `dr` grows by K.
// --lose-every N:K   the link loses K frames every N samples (the board counts nothing: transport loss).
// --garbage-every N  bytes that are no frame between two frames every N samples (some with 0x00 in).
// --reboot-at SEQ    at that seq the board restarts: a new sid, seq and ts from 0, `dr` reset
//                    (or at the next sample after a SIGUSR2; once either way).
// --first-si-ms MS   the first session info comes only after MS (a host joining late sees samples first).
// --start-ms MS      stay silent for MS first (the host opens the port before the stream starts).
// --ts-hz HZ         the board's own clock (ts) says it samples at HZ, while its session info says
//                    --rate (a sensor set to another rate than the firmware reports); sent at --rate.
// --ascii            the firmware's text mode (DATA_FWD_PROTO_ASCII_MODE): CSV lines, CRLF, nothing else.
//
// Defaults are the sample's default build (int32 micro-units, CRC on, indefinite lengths; 6 channels
// here). On exit it prints one JSON line: {"samples" produced, "sent" frames of sensor data, "lost" and
// "dropped": [[first seq, count]...], "garbage" injections, "sessions": [{sid, samples}], "si" sent}.
import { createWriteStream } from 'node:fs';
import { boardArgs } from './board-args.mjs';
import { exitWithReport } from './board-exit.mjs';
import { frame, nordicValue, sensorData, sessionInfo } from './nordic-wire.mjs';

const o = boardArgs({
  rate: '100', channels: '6', crc: 'on', values: 'int32', lengths: 'indefinite', 'si-every-ms': '5000', 'first-si-ms': '0',
  sid: '', name: 'nRF DataFwd', st: '1', rows: '0', 'burst-ms': '10', 'drop-every': '', 'lose-every': '', 'garbage-every': '0',
  'reboot-at': '-1', ascii: false, 'start-ms': '0', 'ts-hz': '',
});
const rate = Number(o.rate);
const tsHz = o['ts-hz'] ? Number(o['ts-hz']) : rate;
const channels = Number(o.channels);
const SHIPPED = ['ax', 'ay', 'az', 'gx', 'gy', 'gz', 'temp', 'hum', 'pres'];
const names = Array.from({ length: channels }, (_, i) => SHIPPED[i] ?? `ch${i}`);
const crc = o.crc !== 'off';
const int32 = o.values !== 'float';
const indefinite = o.lengths !== 'definite';
const limit = Number(o.rows);
const pair = (s) => (s ? s.split(':').map(Number) : [0, 0]);
const [dropEvery, dropCount] = pair(o['drop-every']);
const [loseEvery, loseCount] = pair(o['lose-every']);
const garbageEvery = Number(o['garbage-every']);
let rebootAt = Number(o['reboot-at']);
// SIGUSR2: the board restarts at its next sample (a test that cannot know the seq a take is at).
process.on('SIGUSR2', () => {
  rebootAt = seq;
});
// Each ends in 0x00, so it costs only itself (garbage without one would take the next frame with it).
const GARBAGE = [Buffer.from('boot: hello\r\n\0'), Buffer.from([0x00, 0x13, 0x37, 0x00]), Buffer.from([0xff, 0xfe, 0xfd, 0x00]), Buffer.from([0x03, 0x01, 0x02, 0x00])];

const newSid = () => (o.sid && sessions.length === 0 ? Number(o.sid) : Math.floor(Math.random() * 0xffffffff) >>> 0);
const sessions = [];
let sid = 0;
let seq = 0; // the session's next seq
let start = 0; // sample index at which the session began (ts counts from it)
let dr = 0;
let produced = 0; // samples produced since the board started (across sessions)
let sent = 0;
let siSent = 0;
let garbage = 0;
const lost = [];
const dropped = [];

const out = createWriteStream(o.port);
out.on('error', () => finish(true));

function beginSession() {
  sid = newSid();
  sessions.push({ sid, samples: 0 });
  seq = 0;
  start = produced;
}
beginSession();

const startMs = Number(o['start-ms']); // a quiet moment first, so a host that opens now sees the stream from its start
const t0 = performance.now() + startMs;
let siTimer = null;
function sendSi() {
  if (o.ascii) return;
  out.write(frame(sessionInfo({ sid, hz: rate, names, st: Number(o.st), dr, name: o.name }, { indefinite }), { crc }));
  siSent++;
}
setTimeout(() => {
  sendSi();
  siTimer = setInterval(sendSi, Number(o['si-every-ms']));
}, startMs + Number(o['first-si-ms']));

const timer = setInterval(() => {
  const due = Math.max(0, Math.floor(((performance.now() - t0) * rate) / 1000));
  const parts = [];
  while (produced < due) {
    if (limit && produced >= limit) {
      if (parts.length) out.write(Buffer.concat(parts));
      return finish();
    }
    if (seq === rebootAt && sessions.length === 1) {
      // The board restarts: what is in flight goes out, then a new session with its own sid.
      if (parts.length) out.write(Buffer.concat(parts.splice(0)));
      dr = 0;
      beginSession();
      sendSi();
    }
    const s = seq++;
    const ts = Math.floor(((produced - start) * 1000) / tsHz);
    produced++;
    sessions.at(-1).samples++;
    if (dropEvery && s > 0 && s % dropEvery === 0) {
      // Dropped by the board: seq numbers used, nothing sent, counted in dr.
      dropped.push([s, dropCount]);
      dr += dropCount;
      seq += dropCount - 1;
      produced += dropCount - 1;
      continue;
    }
    if (loseEvery && s > 0 && s % loseEvery === 0) {
      // Sent but lost on the way: the board counts nothing.
      lost.push([s, loseCount]);
      seq += loseCount - 1;
      produced += loseCount - 1;
      continue;
    }
    const values = names.map((_, c) => nordicValue(s, c));
    if (o.ascii) parts.push(Buffer.from(values.map((v) => (int32 ? String(Math.round(v * 1e6)) : v.toFixed(6))).join(',') + '\r\n'));
    else parts.push(frame(sensorData({ seq: s, ts, values }, { indefinite, int32 }), { crc }));
    sent++;
    if (garbageEvery && sent % garbageEvery === 0) {
      parts.push(GARBAGE[garbage % GARBAGE.length]);
      garbage++;
    }
  }
  if (parts.length) out.write(Buffer.concat(parts));
}, Number(o['burst-ms']));

function finish(abrupt = false) {
  clearInterval(timer);
  if (siTimer) clearInterval(siTimer);
  exitWithReport(out, () => ({ samples: produced, sent, lost, dropped, garbage, sessions, si: siSent, names, int32, crc }), abrupt);
}
process.on('SIGTERM', () => finish());

