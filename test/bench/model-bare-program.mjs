// Helper of the "model" bench section, run as a program of its own:
//
//   node model-bare-program.mjs JS LIST THREADS WINDOW_FLOATS STRIDE_FRAMES
//
// The export run bare on the WAV files listed in LIST (one path a line), every whole window at
// k × stride classified once, with nothing of the app around it (no index, no results kept, no
// verdicts): THREADS = 1 in this program's own thread; THREADS = N in N worker threads started at
// once, each reading and classifying its share of the files (every N-th). The bench times it from
// spawn to exit, as it times `capture-desk model test`, so the two are compared like for like:
// both start, load the export, read the same files and classify the same windows.
//
// Says { windows, threads, loopMs: [...] } on stderr after "BARE " (the export's debug prints go to stdout).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { classifyFiles } from './model-bare-worker.mjs';

const [js, list, threadsText, windowText, strideText] = process.argv.slice(2);
const files = readFileSync(list, 'utf8').split('\n').filter(Boolean);
const threads = Number(threadsText);
const o = { js, windowFloats: Number(windowText), strideFrames: Number(strideText) };

function inWorker(share) {
  return new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(new URL('./model-bare-worker.mjs', import.meta.url)), { workerData: { modelBare: true, files: share, ...o }, stdout: true });
    w.stdout.resume();
    w.once('message', (m) => {
      void w.terminate();
      if (m.ok) resolve(m);
      else reject(new Error(m.message));
    });
    w.once('error', reject);
  });
}

const shares = Array.from({ length: threads }, (_, k) => files.filter((_, i) => i % threads === k));
const done = threads === 1 ? [await classifyFiles({ ...o, files })] : await Promise.all(shares.map(inWorker));
process.stderr.write(`BARE ${JSON.stringify({ windows: done.reduce((n, r) => n + r.windows, 0), threads, loopMs: done.map((r) => Math.round(r.wallMs)) })}\n`);
process.exit(0); // the export's glue may keep handles open
