// Helpers of the "model" bench section (no `run` export, nothing happens on import): the figures
// taken in the bench process itself, through the app's own model code (model-entry.ts bundled)
// and the built model worker (dist/model/model-worker.js):
//   perWindow   ModelSession.classify awaited back to back (the app's path: copy, transfer to the
//               worker, heap write, run_classifier, scores read and freed, message back) beside
//               bare run_classifier calls timed inside a worker of their own (model-bare-worker.mjs)
//   micShare    a synthetic 16 kHz microphone (int16-scale blocks of ~21 ms, as the capture
//               process hands them over) through LiveModel at real-time pace: CPU of the process
//               (main thread + model worker) over wall time
//   memoryFlat  the module's heap and the process RSS after 0, N/2 and N windows
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { bundleForNode } from '../support/audio/build-worker.mjs';
import { prng } from '../support/seeded-random.mjs';

const BARE = fileURLToPath(new URL('./model-bare-worker.mjs', import.meta.url));
const DIST_WORKER = fileURLToPath(new URL('../../dist/model/model-worker.js', import.meta.url));
const CLK_TCK = 100; // Linux USER_HZ

/** The app's model code, bundled from the sources; the worker is the built one (dist/) when there. */
export async function loadCore() {
  const core = await import(pathToFileURL(await bundleForNode('test/bench/model-entry.ts')).href);
  const workerPath = existsSync(DIST_WORKER) ? DIST_WORKER : await bundleForNode('src-main/core/model/model-worker.ts');
  return { ...core, workerPath, spawn: core.modelWorkerSpawner(workerPath) };
}

export const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** A window the model would meet: audio = a 440 Hz tone with noise at int16 scale; sensors = a wobble per axis. */
export function windowFor(d) {
  const axes = d.axes ?? 1;
  const n = d.frameSampleCount * axes;
  const w = new Float32Array(n);
  const r = prng(n);
  for (let i = 0; i < n; i++) {
    const row = Math.floor(i / axes);
    const axis = i % axes;
    w[i] = d.sensor === 'microphone'
      ? Math.round(3000 * Math.sin((2 * Math.PI * 440 * row) / d.frequencyHz) + (r() - 0.5) * 1000)
      : (axis === 0 ? 3 : 0.5) * Math.sin((2 * Math.PI * 2 * row) / d.frequencyHz + axis) + (axis === 2 ? 9.81 : 0) + (r() - 0.5) * 0.1;
  }
  return w;
}

/** Folders under `dir` holding an export (a .js and a .wasm), or [] when there is none. */
export async function findExports(dir) {
  const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out = [];
  for (const e of names) {
    if (!e.isDirectory()) continue;
    const files = await readdir(join(dir, e.name)).catch(() => []);
    if (files.some((f) => f.endsWith('.js')) && files.some((f) => f.endsWith('.wasm'))) out.push({ name: e.name, path: join(dir, e.name) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Adds an export to the registry (copied into the bench's temporary data folder, never the
 * repository). An old build that does not say its axes but is a microphone model is given 1 axis.
 */
export async function addModel(registry, path, name, axes) {
  let entry = await registry.add(path, { name, axes });
  let note = '';
  if (entry.description.axes === null && entry.description.sensor === 'microphone') {
    entry = await registry.setAxes(name, 1);
    note = 'axes not said by the build: 1 given (a microphone)';
  }
  return { entry, note };
}

function bare(js, values, calls, maxMs) {
  return bareWorker({ js, values, calls, maxMs });
}

/** Runs model-bare-worker.mjs with this workerData (see there) and resolves with what it posts. */
export function bareWorker(data) {
  return new Promise((resolve, reject) => {
    const w = new Worker(BARE, { workerData: { modelBare: true, ...data }, stdout: true, stderr: true });
    w.stdout.resume();
    let stderr = '';
    w.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-2000)));
    w.once('message', (m) => {
      void w.terminate();
      if (m.ok) resolve(m);
      else reject(new Error(`bare run_classifier worker: ${m.message}`));
    });
    w.once('error', reject);
    w.once('exit', (code) => reject(new Error(`bare run_classifier worker exited (${code}) ${stderr.trim()}`)));
  });
}

/**
 * Per-window time of one added model through the app's path and bare, in the same conditions:
 * at most `calls` windows or `maxMs` each.
 */
export async function perWindow(core, registry, name, { calls, maxMs }) {
  const session = await core.ModelSession.open(registry, name, core.spawn, core.silentLogger);
  const d = session.entry.description;
  const w = windowFor(d);
  let app;
  let workerMs;
  try {
    for (let i = 0; i < 20; i++) await session.classify(w); // warm-up
    const times = [];
    const inWorker = [];
    const t0 = performance.now();
    const end = t0 + maxMs;
    while (times.length < calls && performance.now() < end) {
      const a = performance.now();
      const r = await session.classify(w);
      times.push(performance.now() - a);
      inWorker.push(r.ms);
      if (r.code !== 0) throw new Error(`model ${name} returned ${r.code}`);
    }
    const wall = performance.now() - t0;
    app = { times, windowsPerSecond: times.length / (wall / 1000) };
    workerMs = inWorker;
  } finally {
    await session.close();
  }
  const { jsPath } = await registry.ready(name);
  const b = await bare(jsPath, w, calls, maxMs);
  const bareSum = b.times.reduce((s, x) => s + x, 0);
  return {
    d,
    app: { p50: pct(app.times, 50), p95: pct(app.times, 95), mean: app.times.reduce((s, x) => s + x, 0) / app.times.length, n: app.times.length, windowsPerSecond: app.windowsPerSecond },
    worker: { p50: pct(workerMs, 50) },
    bare: { p50: pct(b.times, 50), p95: pct(b.times, 95), mean: bareSum / b.times.length, n: b.times.length, callsPerSecond: b.times.length / (bareSum / 1000) },
  };
}

/** CPU seconds per thread of this process (tid → user+system), from /proc. */
async function threadTimes() {
  const out = new Map();
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, (Number(f[11]) + Number(f[12])) / CLK_TCK);
  }
  return out;
}

/**
 * A microphone as LiveModel sees one (LiveRows): 16 kHz int16-scale samples in blocks of
 * 1024 frames at 48 kHz resampled to 16 kHz (~341 frames, ~21 ms), paced on the wall clock.
 */
function syntheticMic(rateHz) {
  const BLOCK = Math.round((1024 * rateHz) / 48_000);
  const r = prng(7);
  let phase = 0;
  return {
    name: 'the synthetic microphone', axisNames: ['audio'], rateHz, audio: true,
    subscribe(onRows) {
      const t0 = performance.now();
      let sent = 0;
      const timer = setInterval(() => {
        const due = Math.floor(((performance.now() - t0) * rateHz) / 1000);
        while (due - sent >= BLOCK) {
          const pcm = new Int16Array(BLOCK);
          for (let i = 0; i < BLOCK; i++, phase++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 440 * phase) / rateHz) + (r() - 0.5) * 1000);
          sent += BLOCK;
          onRows(pcm, BLOCK);
        }
      }, (BLOCK / rateHz) * 1000);
      return () => clearInterval(timer);
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The synthetic microphone alone for `seconds`, no model: what feeding it costs this process. */
export async function micBaseline(seconds) {
  const mic = syntheticMic(16_000);
  let rows = 0;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const stop = mic.subscribe((_v, n) => (rows += n));
  await sleep(seconds * 1000);
  stop();
  const c = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  return { share: ((c.user + c.system) / 1000 / wall) * 100, rows };
}

/** One model on the synthetic 16 kHz microphone through LiveModel at `strideMs` for `seconds`. */
export async function micShare(core, registry, name, { strideMs, seconds }) {
  const before = await threadTimes();
  const session = await core.ModelSession.open(registry, name, core.spawn, core.silentLogger);
  const mid = await threadTimes();
  const workerTids = [...mid.keys()].filter((t) => !before.has(t));
  const latencies = [];
  let live;
  let c;
  let wall;
  let t1;
  let t2;
  try {
    const mic = syntheticMic(16_000);
    t1 = await threadTimes();
    const c0 = process.cpuUsage();
    const start = performance.now();
    live = new core.LiveModel(session, mic, { strideMs, threshold: 0.6 }, { verdict: (_v, ms) => latencies.push(ms) });
    await sleep(seconds * 1000);
    await live.stop();
    c = process.cpuUsage(c0);
    wall = performance.now() - start;
    t2 = await threadTimes();
  } finally {
    await session.close();
  }
  const delta = (tids) => tids.reduce((s, t) => s + Math.max(0, (t2.get(t) ?? 0) - (t1.get(t) ?? 0)), 0);
  const workerShare = (delta(workerTids) / (wall / 1000)) * 100;
  const mainShare = ((t2.get(String(process.pid)) ?? 0) - (t1.get(String(process.pid)) ?? 0)) / (wall / 1000) * 100;
  const d = session.entry.description;
  const classifySum = live.classifyMs.reduce((s, x) => s + x, 0);
  return {
    d, fit: live.fit, seconds: wall / 1000,
    share: ((c.user + c.system) / 1000 / wall) * 100,
    workerShare: workerTids.length ? workerShare : null, mainShare,
    windows: live.windows, skipped: live.skipped, errors: live.errors,
    classifyShare: (classifySum / wall) * 100,
    classifyP50: pct(live.classifyMs, 50),
    latencyP50: pct(latencies, 50), latencyP95: pct(latencies, 95),
  };
}

/** Memory of one model's worker after 0, N/2 and N windows through ModelSession.classify. */
export async function memoryFlat(core, registry, name, windows, say) {
  const session = await core.ModelSession.open(registry, name, core.spawn, core.silentLogger);
  const w = windowFor(session.entry.description);
  const marks = [];
  const t0 = performance.now();
  try {
    marks.push({ at: 0, ...(await session.memory()) });
    for (let i = 1; i <= windows; i++) {
      const r = await session.classify(w);
      if (r.code !== 0) throw new Error(`model ${name} returned ${r.code} at window ${i}`);
      if (i === windows / 2 || i === windows) {
        marks.push({ at: i, ...(await session.memory()) });
        say?.(`${name}: ${i.toLocaleString('en-US')} windows, module heap ${marks.at(-1).heapBytes.toLocaleString('en-US')} bytes`);
      }
    }
  } finally {
    await session.close();
  }
  return { marks, seconds: (performance.now() - t0) / 1000 };
}
