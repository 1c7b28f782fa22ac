// Helper of the "serial" bench section (no `run` export, nothing happens on import): the plainest
// readers of the core's end of the PTY, to show what the writer and the PTY can move without the
// core. HOW "plain" reads the port as a file (64 KiB reads, no serialport); "serialport" reads it
// with node-serialport as the core does (its read loop, nothing after it). Neither parses: they
// count line ends.
//
//   node serial-pty-reader.mjs PATH [plain|serialport]      (forked with IPC)
//
// Sends {type:'ready'} once the port is open. On {type:'expect', lines: N} it answers
// {type:'done', lines, bytes, reads, firstAtMs, lastAtMs, cpuMs} when N line ends have arrived (times are
// performance.timeOrigin-based, so the parent can compare them with its own clock);
// {type:'report'} answers the same at once, however many have arrived.
import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

async function open(path, how) {
  if (how !== 'serialport') {
    const input = createReadStream(path, { highWaterMark: 64 * 1024 });
    await new Promise((resolve, reject) => (input.once('open', resolve), input.once('error', reject)));
    return input;
  }
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path, baudRate: 115_200, autoOpen: false });
  await new Promise((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  return port;
}

async function read(path, how) {
  const input = await open(path, how).catch((err) => {
    process.stderr.write(`serial-pty-reader: ${err.message}\n`);
    process.exit(2);
  });
  const cpu0 = process.cpuUsage();
  const s = { lines: 0, bytes: 0, reads: 0, firstAtMs: null, lastAtMs: null };
  let expect = Infinity;
  const report = () => {
    const cpu = process.cpuUsage(cpu0);
    process.send({ type: 'done', ...s, cpuMs: (cpu.user + cpu.system) / 1000 });
  };
  input.on('error', (err) => {
    process.stderr.write(`serial-pty-reader: ${err.message}\n`);
    process.exit(2);
  });
  input.on('data', (chunk) => {
    const now = performance.timeOrigin + performance.now();
    s.firstAtMs ??= now;
    s.lastAtMs = now;
    s.bytes += chunk.length;
    s.reads++;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) s.lines++;
    if (s.lines >= expect) {
      expect = Infinity;
      report();
    }
  });
  process.on('message', (m) => {
    if (m?.type === 'report') report();
    else if (m?.type === 'expect') {
      expect = m.lines;
      if (s.lines >= expect) (expect = Infinity), report();
    }
  });
  process.send({ type: 'ready' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on('disconnect', () => process.exit(0));
  void read(process.argv[2], process.argv[3] ?? 'plain');
}
