// Worker script for the kit's own tests: loads one generated glue in a worker thread (so its
// aborts and process-wide handlers cannot touch the test process), waits for the runtime, then
// runs a scenario (an async function body given as text, called with Module and data) and posts
// what it returned or threw.
// workerData: { js, hideFetch = true, startTimeoutMs = 2000, scenario, data }
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const { js, hideFetch = true, startTimeoutMs = 2000, scenario, data } = workerData;
const require = createRequire(import.meta.url);

// The glue checks `typeof fetch` while require runs; hiding it only then is what a loader does.
const savedFetch = globalThis.fetch;
if (hideFetch) delete globalThis.fetch;
let Module;
try {
  Module = require(js);
} finally {
  if (hideFetch) globalThis.fetch = savedFetch;
}

const t0 = Date.now();
let timer;
const started = await Promise.race([
  new Promise((resolve) => { Module.onRuntimeInitialized = () => resolve(true); }),
  new Promise((resolve) => { timer = setTimeout(() => resolve(false), startTimeoutMs); }),
]);
clearTimeout(timer);
parentPort.postMessage({ type: 'started', started, startMs: Date.now() - t0 });

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
try {
  const out = await new AsyncFunction('Module', 'data', 'require', scenario)(Module, data, require);
  parentPort.postMessage({ type: 'done', out });
} catch (e) {
  parentPort.postMessage({ type: 'threw', name: e?.name, message: String(e?.message ?? e) });
}
