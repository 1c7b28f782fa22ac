#!/usr/bin/env node
// A simulated board running the platform's official AT firmware, on one end of a PTY pair, so
// tests can open the other end through serialport exactly as for real hardware.
//
//   node at-board.mjs --port /tmp/x/board [--at-version 1.3.0] [--storage buffer|file|upload]
//        [--transfer-baud 921600] [--device-id ID] [--device-type TYPE] [--time-scale 0.02]
//        [--inferencing] [--truncate-sample]
//
// --at-version picks the layout and rules: < 1.2 READFILE in hex and sensors by name only,
// < 1.4 the Mbed REPL layout, >= 1.6 the y/n fast-transfer argument.
// --storage: where a sample goes: the RAM buffer (AT+READBUFFER), a file (AT+READFILE), or
// uploaded by the board itself (nothing to read back).
// --truncate-sample: the board stores only the first half of each sample (a flash write cut short),
// so what is read back cannot be decoded.
// stdout, one JSON line each: {"event":"ready"}, {"event":"command","verb":"AT+CONFIG?"},
// {"event":"sample","fileName","storage","length","sha256","base64"} (the exact bytes stored),
// {"event":"baud","baudRate":N}, {"event":"unlink","fileName","deleted":bool,"files":[...]} (what the
// board still holds afterwards, so a test can tell whether a sample was deleted there).
import { SerialPort } from 'serialport';
import { Firmware } from './at-board-firmware.mjs';
import { boardArgs } from './board-args.mjs';

const o = boardArgs({
  'at-version': '1.3.0', storage: 'buffer', 'transfer-baud': '115200', 'device-id': '5A:1B:C3:D4:E5:F6',
  'device-type': 'SIMULATED_AT_BOARD', 'time-scale': '0.02', inferencing: false, 'truncate-sample': false,
});
if (!['buffer', 'file', 'upload'].includes(o.storage)) throw new Error('--storage must be buffer, file or upload');

const emit = (ev) => process.stdout.write(JSON.stringify(ev) + '\n');
const port = new SerialPort({ path: o.port, baudRate: 115200, autoOpen: false });
await new Promise((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));

const fw = new Firmware(
  {
    // serialport queues writes in order; drain waits until they reached the PTY.
    write: (text) => port.write(Buffer.from(text, 'latin1')),
    drain: () => new Promise((resolve) => port.drain(() => resolve())),
    setBaud: (baudRate) => new Promise((resolve, reject) => port.update({ baudRate }, (e) => (e ? reject(e) : resolve()))),
    emit,
  },
  {
    version: o['at-version'],
    storage: o.storage,
    transferBaud: Number(o['transfer-baud']),
    deviceId: o['device-id'],
    deviceType: o['device-type'],
    timeScale: Number(o['time-scale']),
    inferencing: o.inferencing,
    truncateSample: o['truncate-sample'],
  },
);

port.on('data', (d) => fw.receive(d));
// The host side going away (socat killed) ends the board too.
port.on('close', () => process.exit(0));
port.on('error', () => process.exit(0));
process.on('SIGTERM', () => {
  setTimeout(() => process.exit(0), 300).unref();
  port.close(() => process.exit(0));
});

emit({ event: 'ready' });
fw.boot();
