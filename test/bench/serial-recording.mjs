// Helper of the "serial" bench section (no `run` export, nothing happens on import): one hour of a
// 3-axis 100 Hz sensor through SensorRecorder (src-main/core/capture/sensor-recorder.ts), fed as
// fast as it goes in 10-row chunks as a port delivers them, then finish() with an HMAC key.
// The TypeScript is bundled with esbuild at bench time; the recording runs in a child started with
// `node --expose-gc` so RSS can be read after a full collection (the runner cannot pass flags).
//
// Parent side: measureRecording(). As a script: node --expose-gc serial-recording.mjs BUNDLE DIR
// prints one JSON line with what it measured.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROWS = 3600 * 100; // 1 hour at 100 Hz
const AXES = 3;
const PER_APPEND = 10; // rows per chunk, as a port at 100 Hz delivers them every ~100 ms
const SAMPLE_EVERY = 10_000; // rows between RSS readings
const WARM_UP_ROWS = 10_000; // growth is measured from the RSS reading after these rows
const HMAC_KEY = 'bench-hmac-key-0123456789abcdef';
const SRC = (p) => fileURLToPath(new URL(`../../src-main/core/${p}`, import.meta.url));

/** What a board would print for row r, axis a: three decimals, like `-0.123,4.567,9.81`. */
const value = (r, a) => Math.round((Math.sin(r / (17 + a * 5)) * 9.81 + ((r * 7 + a * 13) % 11) / 100) * 1000) / 1000;

async function bundle(outdir) {
  const { build } = await import('esbuild');
  const pin = {
    name: 'pin-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') ? { path: args.path, external: true } : { path: import.meta.resolve(args.path), external: true }));
    },
  };
  const contents = [
    `export { SensorRecorder } from ${JSON.stringify(SRC('capture/sensor-recorder.ts'))};`,
    `export { decodeAcquisition, verifyAcquisitionSignature } from ${JSON.stringify(SRC('samples/formats/acquisition.ts'))};`,
  ].join('\n');
  const outfile = join(outdir, 'recorder.mjs');
  await build({ stdin: { contents, resolveDir: outdir, loader: 'js' }, outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', plugins: [pin], logLevel: 'warning' });
  return outfile;
}

/** Bundles the recorder, records in a `node --expose-gc` child, and returns its JSON report. */
export async function measureRecording() {
  const dir = await mkdtemp(join(tmpdir(), 'capture-desk-bench-recording-'));
  try {
    const entry = await bundle(dir);
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), entry, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const code = await new Promise((resolve, reject) => child.once('error', reject).once('close', resolve));
    if (code !== 0) throw new Error(`recording child exited with ${code}: ${stderr.trim()}`);
    return JSON.parse(stdout.trim().split('\n').at(-1));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const rss = () => (globalThis.gc(), process.memoryUsage().rss);
const tick = () => new Promise((r) => setTimeout(r, 1));

async function record(entry, dir) {
  const { SensorRecorder, decodeAcquisition, verifyAcquisitionSignature } = await import(pathToFileURL(entry).href);
  const sensors = ['accX', 'accY', 'accZ'].map((name) => ({ name, units: 'm/s2' }));
  const startRss = rss();
  const rec = await SensorRecorder.start(join(dir, 'recording'), { deviceType: 'SERIAL_BENCH', sensors, context: { label: 'bench' } });
  const chunk = new Float64Array(PER_APPEND * AXES); // reused, as the line reader reuses its batch
  const samples = [];
  const t0 = performance.now();
  for (let row = 0; row < ROWS; row += PER_APPEND) {
    for (let r = 0; r < PER_APPEND; r++) for (let a = 0; a < AXES; a++) chunk[r * AXES + a] = value(row + r, a);
    rec.append(chunk, PER_APPEND);
    const done = row + PER_APPEND;
    // A real hour has ~100 ms between chunks for the file stream to write; give it a turn.
    if (done % 1000 === 0) await tick();
    if (done % SAMPLE_EVERY === 0) samples.push({ rows: done, rss: rss() });
  }
  const appendMs = performance.now() - t0;
  const target = join(dir, 'sample.cbor');
  const f0 = performance.now();
  await rec.finish(target, { intervalMs: 10, hmacKey: HMAC_KEY });
  const finishMs = performance.now() - f0;
  samples.push({ rows: 'finished', rss: rss() });

  const bytes = await readFile(target);
  const msg = decodeAcquisition(bytes, 'cbor');
  const values = msg.payload.values;
  let wrong = 0;
  for (let r = 0; r < values.length; r++) for (let a = 0; a < AXES; a++) if (values[r]?.[a] !== value(r, a)) wrong++;
  const warm = samples.find((s) => s.rows === WARM_UP_ROWS).rss;
  return {
    rows: ROWS, startRss, warmRss: warm, maxRss: Math.max(...samples.map((s) => s.rss)), samples, appendMs, finishMs,
    fileBytes: bytes.length, decodedRows: values.length, wrongValues: wrong,
    signed: msg.protected.alg === 'HS256', signatureOk: verifyAcquisitionSignature(bytes, HMAC_KEY),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, dir] = process.argv.slice(2);
  const report = await record(entry, dir);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
