// Dataset section (issue 22): a lab's whole data folder, 50,000 samples, as easy to find and count
// as 50. Three parts:
//   import   `capture-desk samples import` of an export of 10,000 small sensor files (info.labels),
//            the real CLI timed from spawn to exit on cold files, BENCH_DATASET_IMPORT_RUNS rounds
//            (default 3) into fresh data folders; the figure is the median. Target ≥ 2,000 files/s.
//   core     the data folder of the issue: 40,000 files uploaded with `capture-desk upload` to the
//            ingestion emulator (a process of its own) plus the 10,000 imported, served by
//            `capture-desk serve`; each query is a contract call over its WebSocket, as the browser
//            makes it (validation, SQLite, encoding, the socket), timed in this process: the median
//            of BENCH_DATASET_QUERY_RUNS (default 15) after one warm-up. Targets: a search or
//            filter < 150 ms, the last page < 300 ms, the class balance's counts < 200 ms.
//   add      the app's "Add files" (samples.addPaths) of 10,000 more, through the same serve, with
//            its data-quality checks: one call, timed once. Target ≥ 2,000 files/s.
//   Chromium the Samples view in Debian's Chromium on the same serve (dataset-chromium.mjs): first
//            rows < 500 ms, a search or filter change < 150 ms, the last page < 300 ms, the class
//            balance < 200 ms, JS heap < 50 MB; BENCH_DATASET_CHROMIUM_RUNS (5) runs each, median.
// The machine's load average is printed with the figures: on a shared machine they move with it.
// Knobs: BENCH_DATASET_SAMPLES (50000), BENCH_DATASET_IMPORT (10000), BENCH_DATASET_IMPORT_RUNS,
// BENCH_DATASET_QUERY_RUNS, BENCH_DROP_CACHES=0 (keep the files in the page cache).
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { evictFiles, runQuiet } from './cold-cache.mjs';
import { chromiumFigures } from './dataset-chromium.mjs';
import { startIngestionProcess, withCliAndSupport } from './ingestion-process.mjs';
import { connectClient, startServe } from './serial-procs.mjs';

const SAMPLES = Number(process.env.BENCH_DATASET_SAMPLES ?? 50_000);
const IMPORT = Number(process.env.BENCH_DATASET_IMPORT ?? 10_000);
const UPLOAD = SAMPLES - IMPORT;
const IMPORT_RUNS = Math.max(1, Number(process.env.BENCH_DATASET_IMPORT_RUNS ?? 3));
const QUERY_RUNS = Math.max(1, Number(process.env.BENCH_DATASET_QUERY_RUNS ?? 15));
const API_KEY = 'ei_test_key';
const LABELS = ['idle', 'wave', 'updown', 'snake', 'knock', 'tap', 'shake', 'tilt', 'circle', 'rest'];
const SUBJECTS = ['ana', 'jo', 'carla', 'dev'];
const PAGE = 500;
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const TARGET = { importRate: 2000, queryMs: 150, lastPageMs: 300, balanceMs: 200 };

const say = (line) => process.stderr.write(`  ${line}\n`);
const nf = (n) => n.toLocaleString('en-US');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');

async function pool(n, width, task) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await task(next++);
  }));
}

/** Small sensor files as boards make them: 50 rows × 3 axes at 10 ms (500 ms), different in every file. */
async function writeFiles(dir, from, count, fixtures, nameOf) {
  const { sensorDoc, encodeCbor } = fixtures;
  await pool(count, 64, async (k) => {
    const i = from + k;
    const values = Array.from({ length: 50 }, (_, r) => [0, 1, 2].map((a) => Math.round((Math.sin(r / 5 + a + i) * 9.81) * 100) / 100));
    values[0][0] = i; // distinct content: the emulator refuses duplicates
    await writeFile(join(dir, nameOf(i)), encodeCbor(sensorDoc(values, 10)));
  });
}

/** An export as the platform writes it: <category>/<file> and an info.labels with labels and metadata. */
async function writeExport(dir, from, count, fixtures) {
  await mkdir(join(dir, 'training'), { recursive: true });
  await mkdir(join(dir, 'testing'), { recursive: true });
  const where = (i) => (i % 5 === 0 ? 'testing' : 'training');
  const name = (i) => `${LABELS[i % LABELS.length]}.${i}.cbor`;
  await writeFiles(dir, from, count, fixtures, (i) => `${where(i)}/${name(i)}`);
  const files = Array.from({ length: count }, (_, k) => {
    const i = from + k;
    return { path: `${where(i)}/${name(i)}`, category: where(i), label: { type: 'label', label: LABELS[i % LABELS.length] }, metadata: { subject: SUBJECTS[i % SUBJECTS.length] } };
  });
  await writeFile(join(dir, 'info.labels'), JSON.stringify({ version: 1, files }));
}

function timeChild(args, env = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let lines = 0;
    let tail = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      for (const c of d) if (c === '\n') lines++;
      tail = (tail + d).slice(-2000);
    });
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - start, code, lines, tail, stderr: stderr.trim() }));
  });
}

/** One `samples import` of the export into `dataDir`, on cold files. */
async function timedImport(exportDir, dataDir) {
  const cache = await evictFiles(exportDir);
  const r = await timeChild([CLI, 'samples', 'import', exportDir, '--data-dir', dataDir]);
  if (r.code !== 0) say(`import exited with ${r.code}: ${r.stderr.split('\n').slice(-3).join(' | ')}`);
  return { ...r, cache };
}

/** Median of QUERY_RUNS timed calls after one warm-up; returns the last answer too. */
async function timeCall(client, method, input) {
  let answer = await client.call(method, input);
  const times = [];
  for (let k = 0; k < QUERY_RUNS; k++) {
    const t = performance.now();
    answer = await client.call(method, input);
    times.push(performance.now() - t);
  }
  return { ms: median(times), max: Math.max(...times), answer };
}

export function run() {
  return withCliAndSupport(CLI, 'dataset', async (tmp, support) => {
    const rows = [];
    const fixtures = await import(pathToFileURL(support.fixtures).href);
    say(`load average before: ${load()} (1, 5, 15 min; ${(await import('node:os')).cpus().length} CPUs)`);

    // ---- import speed ----
    const exportDir = join(tmp, 'export');
    await writeExport(exportDir, UPLOAD, IMPORT, fixtures);
    await runQuiet('sync', []);
    const imports = [];
    for (let i = 0; i < IMPORT_RUNS; i++) {
      const r = await timedImport(exportDir, join(tmp, `import-${i}`));
      imports.push(r);
      say(`import round ${i + 1}: ${(r.ms / 1000).toFixed(2)} s (${nf(Math.round(IMPORT / (r.ms / 1000)))} files/s), ${nf(r.lines)} samples printed, exit ${r.code}, ${r.cache}, load ${load()}`);
      await rm(join(tmp, `import-${i}`), { recursive: true, force: true });
    }
    const importOk = imports.every((r) => r.code === 0 && r.lines === IMPORT);
    const importRate = Math.round(IMPORT / (median(imports.map((r) => r.ms)) / 1000));
    rows.push({
      name: `dataset: samples import of ${nf(IMPORT)} small files (info.labels export)`, value: importRate, unit: 'files/s', target: `≥ ${nf(TARGET.importRate)} files/s`,
      pass: importOk && importRate >= TARGET.importRate,
      detail: `median of ${IMPORT_RUNS} (${imports.map((r) => `${(r.ms / 1000).toFixed(2)} s`).join(', ')}), spawn to exit, ${imports[0].cache}` + (importOk ? '' : `; not every file was imported: ${imports.map((r) => r.lines).join(', ')} lines`),
    });

    // ---- the data folder: 40,000 uploaded + 10,000 imported ----
    const data = join(tmp, 'data');
    const uploadDir = join(tmp, 'upload');
    await mkdir(uploadDir);
    await writeFiles(uploadDir, 0, UPLOAD, fixtures, (i) => `${LABELS[i % LABELS.length]}.${i}.cbor`);
    const server = await startIngestionProcess(support.server);
    let serve;
    try {
      const up = await timeChild([CLI, 'upload', '--ingestion-url', server.url, '--api-key', API_KEY, '--metadata', '{"subject":"bench"}', '--data-dir', data, uploadDir]);
      say(`upload of ${nf(UPLOAD)} into the data folder: ${(up.ms / 1000).toFixed(1)} s, exit ${up.code}: ${up.tail.trim().split('\n').at(-1)}`);
      if (up.code !== 0) throw new Error(`capture-desk upload failed (${up.code}): ${up.stderr.split('\n').slice(-3).join(' | ')}`);
      const into = await timedImport(exportDir, data);
      say(`import of ${nf(IMPORT)} into the folder of ${nf(UPLOAD)}: ${(into.ms / 1000).toFixed(2)} s (${nf(Math.round(IMPORT / (into.ms / 1000)))} files/s), exit ${into.code}`);
      rows.push({ name: `dataset: samples import of ${nf(IMPORT)} into a folder of ${nf(UPLOAD)}`, value: Math.round(IMPORT / (into.ms / 1000)), unit: 'files/s', target: 'reference', pass: into.code === 0 && into.lines === IMPORT ? null : false, detail: `one run, ${into.cache}` });

      // The app's settings point at the emulator, so the class balance can show the platform's numbers too.
      await writeFile(join(data, 'settings.json'), JSON.stringify({ ingestionUrl: server.url, managementUrl: `${server.url}/v1`, projectId: 1 }));
      process.env.CAPTURE_DESK_API_KEY = API_KEY;
      serve = await startServe(CLI, data);
      delete process.env.CAPTURE_DESK_API_KEY;
      const client = await connectClient(serve.wsUrl, () => {});
      try {
        rows.push(...(await coreFigures(client)));
        // In the browser on the same 50,000 (before Add files makes them more).
        rows.push(...(await chromiumFigures({ url: serve.url, client, total: SAMPLES, say })));
        rows.push(await addFilesFigure(client, join(tmp, 'add'), fixtures));
      } finally {
        await client.close();
      }
    } finally {
      await serve?.stop();
      await server.close();
    }

    rows.push({ name: 'dataset: load average while measuring (1, 5, 15 min)', value: load(), unit: '', target: 'reference', pass: null, detail: `${(await import('node:os')).cpus().length} CPUs shared with other work: figures move with the load` });
    return rows;
  });
}

/** The core's answers the table, the filters and the class balance need, over the WebSocket. */
async function coreFigures(client) {
  const rows = [];
  const first = await client.call('samples.query', { limit: PAGE });
  if (first.total !== SAMPLES) throw new Error(`the data folder holds ${first.total} samples, not ${SAMPLES}`);
  say(`serving ${nf(first.total)} samples; ${QUERY_RUNS} timed calls per figure after a warm-up; load ${load()}`);
  const figure = async (name, method, input, target, check) => {
    const t = await timeCall(client, method, input);
    const problem = check ? check(t.answer) : null;
    say(`${name}: median ${t.ms.toFixed(1)} ms, max ${t.max.toFixed(1)} ms${problem ? `; WRONG ANSWER: ${problem}` : ''}`);
    rows.push({
      name: `dataset: ${name}`, value: Math.round(t.ms * 10) / 10, unit: 'ms', target: target === null ? 'reference' : `< ${target} ms`,
      pass: problem ? false : target === null ? null : t.ms < target,
      detail: `median of ${QUERY_RUNS}, max ${t.max.toFixed(1)} ms${t.answer && typeof t.answer.total === 'number' ? `; ${nf(t.answer.total)} match` : ''}${problem ? `; ${problem}` : ''}`,
    });
    return t.answer;
  };
  const total = (n) => (a) => (a.total === n ? null : `total ${a.total}, expected ${n}`);
  const perLabel = SAMPLES / LABELS.length;
  await figure('first page, newest first (500 rows)', 'samples.query', { limit: PAGE }, TARGET.queryMs, total(SAMPLES));
  await figure('search "updown" (a label, 1 in 10)', 'samples.query', { filter: { text: 'updown' }, limit: PAGE }, TARGET.queryMs, total(perLabel));
  await figure('search "shake.4246.cbor" (one name)', 'samples.query', { filter: { text: 'shake.4246.cbor' }, limit: PAGE }, TARGET.queryMs, total(1));
  await figure('search "jo" (two letters, a metadata value)', 'samples.query', { filter: { text: 'jo' }, limit: PAGE }, TARGET.queryMs, total(IMPORT / SUBJECTS.length));
  await figure('filter labels wave + tap', 'samples.query', { filter: { labels: ['wave', 'tap'] }, limit: PAGE }, TARGET.queryMs, total(2 * perLabel));
  await figure('filter state local', 'samples.query', { filter: { states: ['local'] }, limit: PAGE }, TARGET.queryMs, total(IMPORT));
  await figure('filter state uploaded', 'samples.query', { filter: { states: ['uploaded'] }, limit: PAGE }, TARGET.queryMs, total(UPLOAD));
  await figure('filter category testing + label idle, search "ana", by name', 'samples.query',
    { filter: { categories: ['testing'], labels: ['idle'], text: 'ana' }, sort: { by: 'name', dir: 'asc' }, limit: PAGE }, TARGET.queryMs, null);
  const last = Math.floor((SAMPLES - 1) / PAGE) * PAGE;
  await figure(`last page, newest first (offset ${nf(last)})`, 'samples.query', { limit: PAGE, offset: last }, TARGET.lastPageMs, (a) => (a.samples.length === SAMPLES - last ? null : `${a.samples.length} rows`));
  await figure('last page, by name descending', 'samples.query', { sort: { by: 'name', dir: 'desc' }, limit: PAGE, offset: last }, TARGET.lastPageMs, null);
  const upLast = Math.floor((UPLOAD - 1) / PAGE) * PAGE;
  await figure('last page of uploaded, by length', 'samples.query', { filter: { states: ['uploaded'] }, sort: { by: 'length', dir: 'asc' }, limit: PAGE, offset: upLast }, TARGET.lastPageMs, total(UPLOAD));
  const balanceCheck = (a) => {
    const b = a.balance.all;
    if (b.total !== SAMPLES || b.uploaded + b.queued + b.local + b.failed !== b.total) return `balance total ${b.total}`;
    return b.uploaded === UPLOAD && b.local === IMPORT ? null : `uploaded ${b.uploaded}, local ${b.local}`;
  };
  await figure('class balance counts (dataset.summary, platform not asked)', 'dataset.summary', { platform: false }, TARGET.balanceMs, balanceCheck);
  const withPlatform = await figure('class balance with the platform\'s numbers (emulator over HTTP)', 'dataset.summary', {}, null, (a) =>
    a.balance.platformReached ? balanceCheck(a) : `platform not reached: ${a.platformError}`);
  say(`class balance: ${withPlatform.balance.summary}`);
  await figure('filter chips (samples.facets)', 'samples.facets', {}, null, (a) => (a.total === SAMPLES ? null : `total ${a.total}`));
  await figure('"all N matching": bulk relabel dry run on label wave', 'samples.bulk', { filter: { labels: ['wave'] }, action: { type: 'label', label: 'wave2' }, dryRun: true }, null,
    (a) => (a.matched === perLabel ? null : `matched ${a.matched}`));
  await figure('"all N matching": ids of label wave (idsMatching)', 'samples.idsMatching', { filter: { labels: ['wave'] } }, null, total(perLabel));
  return rows;
}

/**
 * The app's "Add files" (samples.addPaths, the window's drop and file picker) of 10,000 more small
 * files into the served folder of 50,000, with the app's data-quality checks on every file: one
 * call over the WebSocket, timed once (it changes the folder, so it comes after the queries).
 */
async function addFilesFigure(client, dir, fixtures) {
  await mkdir(dir);
  await writeFiles(dir, SAMPLES, IMPORT, fixtures, (i) => `${LABELS[i % LABELS.length]}.${i}.cbor`);
  await runQuiet('sync', []);
  const cache = await evictFiles(dir);
  const paths = Array.from({ length: IMPORT }, (_, k) => join(dir, `${LABELS[(SAMPLES + k) % LABELS.length]}.${SAMPLES + k}.cbor`));
  const t = performance.now();
  const { results } = await client.call('samples.addPaths', { paths, category: 'training' });
  const ms = performance.now() - t;
  const added = results.filter((r) => r.status === 'added').length;
  const rate = Math.round(IMPORT / (ms / 1000));
  say(`Add files (samples.addPaths) of ${nf(IMPORT)}: ${(ms / 1000).toFixed(2)} s (${nf(rate)} files/s), ${nf(added)} added, ${cache}, load ${load()}`);
  return {
    name: `dataset: Add files (samples.addPaths) of ${nf(IMPORT)} small files, quality checks on`, value: rate, unit: 'files/s', target: `≥ ${nf(TARGET.importRate)} files/s`,
    pass: added === IMPORT && rate >= TARGET.importRate, detail: `one call over the WebSocket into the folder of ${nf(SAMPLES)}, ${(ms / 1000).toFixed(2)} s, ${cache}${added === IMPORT ? '' : `; only ${added} added`}`,
  };
}
