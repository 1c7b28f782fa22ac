// Helper of the "model" bench section (nothing happens on import in the main thread): run as a
// worker thread, it loads one exported model's glue the way the app's loader does (glue.ts's
// loadGlue: require through createRequire with Node's fetch hidden, wait for
// onRuntimeInitialized, init() where the build has it) and times bare run_classifier calls on
// one window written into the module's heap once: the module's own cost, with nothing of the app
// around it. Each result is freed (entries, vector, result) outside the timed part, so the
// module's heap stays as it is in the app.
//
//   new Worker(thisFile, { workerData: { modelBare: true, js, values: Float32Array, calls, maxMs } })
//
// Posts { ok: true, times: number[] (ms per call), startMs } or { ok: false, message }.
//
// With `pcm: Int16Array` (one-channel samples of `sampleFrames` each, end to end), `windowFloats`
// and `strideFrames` instead of `values`: every whole window of every sample at k × stride written
// into the heap and classified once, in order (the model test bench's "bare, one thread, the same
// windows"); posts { ok: true, windows, wallMs (the loop, heap writes
// included), callMs (the sum of run_classifier calls), startMs }.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

function loadGlue(js) {
  const req = createRequire(js);
  const saved = globalThis.fetch;
  delete globalThis.fetch;
  let M;
  try {
    M = req(js);
  } finally {
    globalThis.fetch = saved;
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the runtime did not start within 10 s')), 10_000);
    M.onRuntimeInitialized = () => {
      clearTimeout(timer);
      try {
        if (typeof M.init === 'function') M.init();
        resolve(M);
      } catch (err) {
        reject(err);
      }
    };
  });
}

/** Frees a result in either shape (glue.ts's readResult without reading the scores). */
function free(r) {
  try {
    if (typeof r.size === 'function' && typeof r.get === 'function') {
      for (let i = 0, n = r.size(); i < n; i++) r.get(i)?.delete?.();
    } else if (r.classification) {
      const v = r.classification;
      for (let i = 0, n = v.size(); i < n; i++) v.get(i)?.delete?.();
      v.delete?.();
    }
  } finally {
    r.delete?.();
  }
}

async function main({ js, values, calls, maxMs }) {
  const t0 = performance.now();
  const M = await loadGlue(js);
  const startMs = performance.now() - t0;
  const ptr = M._malloc(values.length * 4);
  M.HEAPF32.set(values, ptr >> 2);
  const n = values.length;
  for (let i = 0; i < 20; i++) free(M.run_classifier(ptr, n, false)); // warm-up: JIT, first-call allocations
  const times = [];
  const end = performance.now() + maxMs;
  while (times.length < calls && performance.now() < end) {
    const a = performance.now();
    const r = M.run_classifier(ptr, n, false);
    times.push(performance.now() - a);
    if (r.result !== 0) throw new Error(`run_classifier returned ${r.result}`);
    free(r);
  }
  M._free(ptr);
  return { times, startMs };
}

async function allWindows({ js, pcm, sampleFrames, windowFloats, strideFrames }) {
  const t0 = performance.now();
  const M = await loadGlue(js);
  const startMs = performance.now() - t0;
  const ptr = M._malloc(windowFloats * 4);
  const samples = pcm.length / sampleFrames;
  const perSample = Math.floor((sampleFrames - windowFloats) / strideFrames) + 1;
  const write = (from) => {
    const heap = M.HEAPF32; // taken after the malloc: the heap may have grown
    const at = ptr >> 2;
    for (let i = 0; i < windowFloats; i++) heap[at + i] = pcm[from + i];
  };
  for (let i = 0; i < 20; i++) {
    write(0);
    free(M.run_classifier(ptr, windowFloats, false)); // warm-up, as above
  }
  let callMs = 0;
  let windows = 0;
  const a = performance.now();
  for (let s = 0; s < samples; s++) {
    for (let k = 0; k < perSample; k++) {
      write(s * sampleFrames + k * strideFrames);
      const c = performance.now();
      const r = M.run_classifier(ptr, windowFloats, false);
      callMs += performance.now() - c;
      if (r.result !== 0) throw new Error(`run_classifier returned ${r.result}`);
      free(r);
      windows++;
    }
  }
  const wallMs = performance.now() - a;
  M._free(ptr);
  return { windows, wallMs, callMs, startMs };
}

/**
 * Every whole window at k × stride of each one-channel 16-bit WAV in `files` (canonical 44-byte
 * header, as the bench writes them), each file read here when its turn comes and its windows written
 * from the file's bytes straight into the heap, classified once, in order: the bare program of the
 * model test bench (model-bare-program.mjs). Returns { windows, wallMs (files read, windows written
 * and classified), startMs }.
 */
export async function classifyFiles({ js, files, windowFloats, strideFrames }) {
  const t0 = performance.now();
  const M = await loadGlue(js);
  const startMs = performance.now() - t0;
  const ptr = M._malloc(windowFloats * 4);
  let windows = 0;
  const a = performance.now();
  for (const f of files) {
    const b = readFileSync(f);
    if (b.toString('latin1', 36, 40) !== 'data') throw new Error(`${f} is not a canonical 44-byte-header WAV`);
    const pcm = new Int16Array(b.buffer, b.byteOffset + 44, (b.length - 44) >> 1);
    for (let from = 0; from + windowFloats <= pcm.length; from += strideFrames) {
      const heap = M.HEAPF32;
      const at = ptr >> 2;
      for (let i = 0; i < windowFloats; i++) heap[at + i] = pcm[from + i];
      const r = M.run_classifier(ptr, windowFloats, false);
      if (r.result !== 0) throw new Error(`run_classifier returned ${r.result}`);
      free(r);
      windows++;
    }
  }
  const wallMs = performance.now() - a;
  M._free(ptr);
  return { windows, wallMs, startMs };
}

if (!isMainThread && workerData?.modelBare) {
  // The glue's debug prints (printf) go to stdout; the parent does not read them.
  (workerData.files ? classifyFiles(workerData) : workerData.pcm ? allWindows(workerData) : main(workerData)).then(
    (r) => parentPort.postMessage({ ok: true, ...r }),
    (err) => parentPort.postMessage({ ok: false, message: String(err?.message ?? err) }),
  );
}
