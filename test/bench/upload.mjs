// Upload section: 10,000 small sensor files to a local ingestion emulator.
//   ours     the real CLI end to end (process start, indexing and hashing, SQLite, queue, HTTP)
//   baseline one file per request, 20 in flight (one-per-request.mjs), as the platform's uploader
//   floor    reading the same files from disk, nothing else
// Both clients run as their own processes and are timed from spawn to exit; every run gets a fresh
// emulator in a third process. Before each timed step the sensor files are evicted from the page
// cache, so both clients and the floor read cold files alike (figures say which cache they saw).
// Rounds are interleaved (ours, baseline, floor; again...) and the figures are medians. Target:
// median ours / baseline >= 5x, and every file stored in every run.
// Knobs: BENCH_UPLOAD_RUNS (rounds, default 5), BENCH_UPLOAD_FILES (default 10000), BENCH_CLI,
// BENCH_DROP_CACHES=0 (keep the files in the page cache).
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { evictFiles, runQuiet } from './cold-cache.mjs';
import { startIngestionProcess, withCliAndSupport } from './ingestion-process.mjs';

const FILES = Number(process.env.BENCH_UPLOAD_FILES ?? 10_000);
const TARGET_RATIO = 5;
const API_KEY = 'ei_test_key';
const LABELS = ['idle', 'wave', 'updown', 'snake'];
// BENCH_CLI: measure another build of the CLI (e.g. a branch's dist) against the same baseline.
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./one-per-request.mjs', import.meta.url));

/** 50 rows x 3 axes of accelerometer-like noise, different in every file (the emulator refuses duplicates). */
async function writeSensorFiles(dir, fixtures) {
  const { sensorDoc, encodeCbor } = fixtures;
  let seed = 12345;
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 2;
  const write = async (i) => {
    const values = Array.from({ length: 50 }, (_, r) => [0, 1, 2].map((a) => Math.round((Math.sin(r / 5 + a) * 9.81 + noise()) * 100) / 100));
    values[0][0] = i; // guarantees distinct content
    await writeFile(join(dir, `${LABELS[i % LABELS.length]}.${i}.cbor`), encodeCbor(sensorDoc(values, 10)));
  };
  await pool(FILES, 64, write);
}

async function pool(n, width, task) {
  let next = 0;
  const worker = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, worker));
}

async function readFloor(dir) {
  const cache = await evictFiles(dir, { dropAll: true });
  const start = performance.now();
  const names = await readdir(dir);
  let bytes = 0;
  await pool(names.length, 32, async (i) => {
    const data = await readFile(join(dir, names[i]));
    bytes += data.length;
  });
  return { ms: performance.now() - start, cache, bytes };
}

function timeChild(args) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - start, code, stdout: stdout.trim(), stderr: stderr.trim() }));
  });
}

/** One measured client run against a fresh emulator, on cold files; `args(url)` builds the client's command line. */
async function measure(serverBundle, files, args) {
  const server = await startIngestionProcess(serverBundle);
  try {
    const cache = await evictFiles(files, { dropAll: true });
    const run = await timeChild(args(server.url));
    const stats = await server.stats();
    if (run.code !== 0) process.stderr.write(`  client exited with ${run.code}\n  ${run.stdout}\n  ${run.stderr.split('\n').slice(-5).join('\n  ')}\n`);
    return { ...run, ...stats, cache };
  } finally {
    await server.close();
  }
}

const RUNS = Math.max(1, Number(process.env.BENCH_UPLOAD_RUNS ?? 5));
const rate = (ms) => Math.round(FILES / (ms / 1000));
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const say = (line) => process.stderr.write(`  ${line}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * RUNS rounds, each: ours, then the baseline, then the floor, every one on cold files and each
 * client against a fresh emulator. Interleaving makes a slow spell of a shared machine hit both
 * clients alike; the figures are medians over the rounds, and the ratio is the median of the
 * per-round ratios (each taken from two runs a few seconds apart).
 */
async function measureRounds(serverBundle, files, clients) {
  const rounds = [];
  for (let i = 0; i < RUNS; i++) {
    const round = {};
    for (const [label, args] of Object.entries(clients)) {
      round[label] = await measure(serverBundle, files, (url) => args(url, i));
      const r = round[label];
      say(`round ${i + 1} ${label}: ${seconds(r.ms)} (${rate(r.ms)} files/s), ${r.samples} stored, ${r.requests} requests, emulator CPU ${r.cpuMs} ms, exit ${r.code}, ${r.cache}`);
    }
    round.floor = await readFloor(files);
    round.ratio = round.baseline.ms / round.ours.ms;
    say(`round ${i + 1} floor: ${seconds(round.floor.ms)} (${rate(round.floor.ms)} files/s); ours / baseline = ${round.ratio.toFixed(2)}x`);
    rounds.push(round);
  }
  return rounds;
}

export function run() {
  return withCliAndSupport(CLI, 'upload', async (tmp, support) => {
    const files = join(tmp, 'files');
    await mkdir(files);
    const fixtures = await import(pathToFileURL(support.fixtures).href);
    await writeSensorFiles(files, fixtures);
    await runQuiet('sync', []);
    say(`wrote ${FILES} sensor files to ${files}; ${RUNS} rounds of ours, baseline, floor`);

    const rounds = await measureRounds(support.server, files, {
      ours: (url, i) => [CLI, 'upload', '--ingestion-url', url, '--api-key', API_KEY, '--data-dir', join(tmp, `data-${i}`), files],
      baseline: (url) => [BASELINE, '--ingestion-url', url, '--api-key', API_KEY, '--concurrency', '20', files],
    });
    const expectedLine = `${FILES} uploaded, 0 already present, 0 rejected, 0 failed`;
    const ours = rounds.map((r) => r.ours);
    const baseline = rounds.map((r) => r.baseline);
    const floor = rounds.map((r) => r.floor);
    const oursOk = ours.every((r) => r.code === 0 && r.stdout.endsWith(expectedLine));
    const baselineOk = baseline.every((r) => r.code === 0);
    const ratio = median(rounds.map((r) => r.ratio));
    const each = (rs) => rs.map((r) => seconds(r.ms)).join(', ');
    const stored = (rs) => Math.min(...rs.map((r) => r.samples));
    const verdict = ratio >= TARGET_RATIO ? 'PASS' : 'FAIL';
    say(`ours ${rate(median(ours.map((r) => r.ms)))} files/s, baseline ${rate(median(baseline.map((r) => r.ms)))} files/s, floor ${rate(median(floor.map((r) => r.ms)))} files/s; ` +
      `median ratio ${ratio.toFixed(2)}x (target ≥ ${TARGET_RATIO}×): ${verdict}`);
    return [
      { name: 'upload: floor, read files from disk', value: rate(median(floor.map((r) => r.ms))), unit: 'files/s', target: 'reference (upper bound)', pass: null,
        detail: `median of ${RUNS} (${each(floor)}), ${FILES} files (${(floor[0].bytes / 1e6).toFixed(1)} MB), fs.readFile 32 at a time, ${floor[0].cache}` },
      { name: 'upload: baseline, one file per request, 20 in flight', value: rate(median(baseline.map((r) => r.ms))), unit: 'files/s', target: 'reference',
        pass: baselineOk ? null : false, detail: `median of ${RUNS} (${each(baseline)}), ${baseline[0].requests} requests, ${baseline[0].cache}` },
      { name: 'upload: ours, capture-desk upload end to end', value: rate(median(ours.map((r) => r.ms))), unit: 'files/s',
        target: `≥ ${TARGET_RATIO}× baseline`, pass: oursOk ? null : false,
        detail: `median of ${RUNS} (${each(ours)}), ${ours[0].requests} requests, ${ours[0].cache}` +
          (oursOk ? '' : `; CLI said: ${ours.map((r) => r.stdout.split('\n').at(-1)).join(' | ')}`) },
      { name: 'upload: ours / baseline (median of rounds)', value: Math.round(ratio * 100) / 100, unit: 'x', target: `≥ ${TARGET_RATIO}×`, pass: ratio >= TARGET_RATIO,
        detail: `per round: ${rounds.map((r) => `${r.ratio.toFixed(2)}x`).join(', ')}` },
      { name: 'upload: files the emulator stored, baseline', value: stored(baseline), unit: 'files', target: `= ${FILES} every run`, pass: stored(baseline) === FILES,
        detail: `per run: ${baseline.map((r) => r.samples).join(', ')}` },
      { name: 'upload: files the emulator stored, ours', value: stored(ours), unit: 'files', target: `= ${FILES} every run`, pass: stored(ours) === FILES,
        detail: `per run: ${ours.map((r) => r.samples).join(', ')}` },
    ];
  });
}
