// Benchmark section "quality": how long the data-quality checks take on the biggest captures a
// lab records, since they run on every new sample before it is indexed.
//   - a 1-hour 3-axis 100 Hz sensor capture (CBOR, as recordings are written): target < 1 s
//   - a 1-hour 16 kHz mono WAV (57.6 MB): target < 2 s
// Both are read from disk, as after a recording; each figure is the best of three runs.
import { Encoder } from 'cbor-x';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleForNode } from '../support/audio/build-worker.mjs';
import { monoWav } from '../support/audio/wav-bytes.mjs';

const HOUR_S = 3600;

function sensorHour() {
  const rows = HOUR_S * 100;
  const values = new Array(rows);
  for (let i = 0; i < rows; i++) values[i] = [Math.sin(i / 10) + (i % 7) / 100, Math.cos(i / 13) + (i % 5) / 100, 9.81 + Math.sin(i / 3) / 10];
  const msg = { protected: { ver: 'v1', alg: 'none', iat: 1_700_000_000 }, signature: '0'.repeat(64), payload: { device_type: 'BENCH', interval_ms: 10, sensors: ['accX', 'accY', 'accZ'].map((name) => ({ name, units: 'm/s2' })), values } };
  return Buffer.from(new Encoder({ useRecords: false, variableMapSize: true }).encode(msg));
}

function wavHour(rate = 16_000) {
  return monoWav(HOUR_S * rate, rate, (i) => Math.round(6000 * Math.sin((2 * Math.PI * 997 * i) / rate)) || 1);
}

async function best(n, fn) {
  let min = Infinity;
  let last;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    last = await fn();
    min = Math.min(min, performance.now() - t);
  }
  return { ms: min, last };
}

export async function run() {
  const { checkSample } = await import(pathToFileURL(await bundleForNode('src-main/core/samples/quality/check-sample.ts')).href);
  const dir = await mkdtemp(join(tmpdir(), 'cd-bench-quality-'));
  try {
    const sensorPath = join(dir, 'hour.cbor');
    const sensorBytes = sensorHour();
    await writeFile(sensorPath, sensorBytes);
    const wavPath = join(dir, 'hour.wav');
    await writeFile(wavPath, wavHour());
    const opts = { minLengthMs: 500 };
    const rssBefore = process.memoryUsage().rss;
    const sensor = await best(3, () => checkSample({ path: sensorPath }, { name: 'hour.cbor', kind: 'sensor', extra: { dropped_lines: 0, rejected_lines: 0, measured_hz: 100 } }, opts));
    const rssGrowth = (process.memoryUsage().rss - rssBefore) / 1048576;
    const audio = await best(3, () => checkSample({ path: wavPath }, { name: 'hour.wav', kind: 'audio' }, opts));
    const findings = (r) => (r.findings.length ? r.findings.map((f) => f.code).join(', ') : 'no findings');
    return [
      { name: 'quality: 1 h 3-axis 100 Hz CBOR sample', value: sensor.ms, unit: 'ms', target: '< 1000 ms', pass: sensor.ms < 1000, detail: `${(sensorBytes.length / 1048576).toFixed(1)} MB, 360,000 rows; ${findings(sensor.last)}; RSS +${rssGrowth.toFixed(0)} MB over 3 runs` },
      { name: 'quality: 1 h 16 kHz mono WAV', value: audio.ms, unit: 'ms', target: '< 2000 ms', pass: audio.ms < 2000, detail: `57.6 MB; ${findings(audio.last)}` },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
