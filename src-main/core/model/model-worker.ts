/**
 * A worker thread that runs one exported model. Loaded exports get a thread of their own because
 * (spec/wasm-model.md) an abort kills their runtime, their glue registers process-wide
 * uncaughtException/unhandledRejection handlers and may call process.exit: inside a worker those
 * touch only this thread, and a runaway module is ended with worker.terminate().
 */
import { parentPort } from 'node:worker_threads';
import { CoreError } from '../errors.js';
import { decodeAudioSample } from '../review/decoded-audio.js';
import { readPinnedFileSync } from '../samples/sample-files.js';
import { classifyDecodedWith, type WindowAnswer } from './classify-windows.js';
import { Classifier, loadGlue, readProperties, type EmModule } from './glue.js';
import type { FromModelWorker, SampleJob, ToModelWorker } from './worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('model-worker.ts runs as a worker thread');
const send = (m: FromModelWorker): void => port.postMessage(m);

let M: EmModule | null = null;
let classifier: Classifier | null = null;
let slicesPerWindow = 4;
let lastSeq = -1;
let refillLeft = 0;
/** What the module said when it aborted: its runtime is dead from then on. */
let aborted: string | null = null;
let loading = true;

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

port.on('message', (m: ToModelWorker) => {
  switch (m.t) {
    case 'load':
      void load(m.jsPath);
      return;
    case 'classify':
      classify(m.id, m.values, m.continuous, m.seq, m.count ?? m.values.length);
      return;
    case 'classify-batch':
      classifyBatch(m.id, m.values, m.windowFloats, m.count);
      return;
    case 'classify-sample':
      void classifySample(m.id, m);
      return;
    case 'memory':
      send({ t: 'memory', id: m.id, heapBytes: M ? M.HEAPF32.byteLength : 0, rssBytes: process.memoryUsage().rss });
      return;
    case 'stop':
      classifier?.dispose();
      port.close();
      return;
  }
});

async function load(jsPath: string): Promise<void> {
  const t0 = performance.now();
  try {
    M = await loadGlue(jsPath, (what) => (aborted ??= what));
    const properties = readProperties(M);
    if (properties.sliceSize && properties.frameSampleCount) {
      const floats = properties.inputFeaturesCount ?? properties.frameSampleCount;
      slicesPerWindow = Math.max(1, Math.round(floats / properties.sliceSize));
    }
    classifier = new Classifier(M);
    send({ t: 'loaded', properties, startMs: performance.now() - t0 });
  } catch (err) {
    send({ t: 'load-failed', message: messageOf(err), detail: detailOf(err) });
  } finally {
    loading = false;
  }
}

function classify(id: number, values: Float32Array, continuous: boolean, seq: number, count: number): void {
  if (!classifier) return send({ t: 'failed', id, message: 'the model is not loaded' });
  // Continuous mode keeps a rolling window of slices inside the module: after a skipped slice it
  // holds a hole until a whole window of new slices has gone in, and answers meanwhile are not its
  // own (the same at the start, when it holds zeros).
  if (continuous) {
    if (lastSeq < 0 || seq !== lastSeq + 1) refillLeft = slicesPerWindow - 1;
    else if (refillLeft > 0) refillLeft--;
    lastSeq = seq;
  }
  const t0 = performance.now();
  try {
    const r = classifier.run(values, continuous, count);
    send({ t: 'result', id, code: r.code, scores: r.scores, anomaly: r.anomaly, ms: performance.now() - t0, refilling: continuous && refillLeft > 0 });
  } catch (err) {
    // An abort leaves the runtime dead: say so and end, so the runner starts a fresh one.
    // A debug build's abort error carries stack frames in its message; the module's words are in `aborted`.
    send({ t: 'failed', id, message: aborted ?? messageOf(err), detail: detailOf(err) });
    setImmediate(() => process.exit(1));
  }
}

function classifyBatch(id: number, values: Float32Array, windowFloats: number, count: number): void {
  if (!classifier) return send({ t: 'failed', id, message: 'the model is not loaded' });
  const results: Extract<FromModelWorker, { t: 'batch-result' }>['results'] = [];
  try {
    for (let k = 0; k < count; k++) {
      const t0 = performance.now();
      const r = classifier.run(values.subarray(k * windowFloats, (k + 1) * windowFloats), false, windowFloats);
      results.push({ code: r.code, scores: r.scores, anomaly: r.anomaly, ms: performance.now() - t0 });
    }
    send({ t: 'batch-result', id, results });
  } catch (err) {
    // As for one window: the runtime is dead; the runner retries the whole batch in a fresh one.
    send({ t: 'failed', id, message: aborted ?? messageOf(err), detail: detailOf(err) });
    setImmediate(() => process.exit(1));
  }
}

/**
 * A whole sample here, beside the module: read (checked against its pinned hash), decoded, cut into
 * windows and classified, its result sent back whole. In bulk work the core's thread then only
 * hands out samples and keeps results; reading, decoding and windowing a thousand samples there
 * kept the workers waiting for it (measured: a third of their time on two cores).
 */
async function classifySample(id: number, job: SampleJob): Promise<void> {
  if (!classifier) return send({ t: 'failed', id, message: 'the model is not loaded' });
  const c = classifier;
  let dead: unknown = null;
  const run = (values: Float32Array, windowFloats: number, count: number): WindowAnswer[] => {
    const out: WindowAnswer[] = [];
    try {
      for (let k = 0; k < count; k++) out.push(c.run(values.subarray(k * windowFloats, (k + 1) * windowFloats), false, windowFloats));
    } catch (err) {
      dead = err;
      throw err;
    }
    return out;
  };
  try {
    const bytes = 'bytes' in job.source ? job.source.bytes : readPinnedFileSync(job.source.path, job.sample);
    // Sensor files need the CBOR and JSON decoders (and zod): loaded the first time one comes, not at every start.
    const decoded = decodeAudioSample(job.sample, bytes) ?? (await import('../review/decoded.js')).decodeSampleBytes(job.sample, bytes);
    const stop = job.stop;
    const classification = await classifyDecodedWith(job.entry, run, job.sample, decoded, {
      strideMs: job.strideMs,
      threshold: job.threshold,
      batchWindows: 1, // no round trip to save here; the stop flag is then looked at before every window
      ...(stop ? { progress: () => Atomics.load(stop, 0) === 0 } : {}),
    });
    send({ t: 'sample-result', id, classification });
  } catch (err) {
    if (dead !== null) {
      // As for a batch: the module's runtime is dead; the session retries the sample in a fresh one.
      send({ t: 'failed', id, message: aborted ?? messageOf(dead), detail: detailOf(dead) });
      setImmediate(() => process.exit(1));
      return;
    }
    // The sample's own problem (or a bug in reading it): said as it would be in the core's thread.
    const e = err instanceof CoreError ? err : new CoreError('Internal', messageOf(err), { detail: detailOf(err) });
    send({ t: 'sample-refused', id, code: e.code, message: e.message, details: e.details });
  }
}

const detailOf = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));

// The glue's promise chains reject when its runtime aborts (a wasm that does not compile aborts
// inside one); loadGlue took its own handler for that off. An abort is already said by the load
// failing or the call that hit it; any other stray rejection kills the runtime just the same.
process.on('unhandledRejection', (reason) => {
  if (aborted !== null) return;
  const said = { message: messageOf(reason), detail: detailOf(reason) };
  send(loading ? { t: 'load-failed', ...said } : { t: 'failed', id: null, ...said });
  setImmediate(() => process.exit(1));
});

// Errors thrown outside a call (the glue's re-throwing uncaughtException handler) end the thread;
// the runner hears it as an 'error' event with this message.
