/**
 * The export's calling conventions, used only inside the model worker (model-worker.ts): load the
 * Emscripten glue, read its properties, classify one window, free what it returns. Everything
 * measured about real exports is in shared/spec/wasm-model.md; the rules that shape this file:
 * - the glue is CommonJS and starts asynchronously (onRuntimeInitialized);
 * - Node's fetch makes old glue abort, so it is hidden while the glue is required;
 * - debug builds have getters on Module that abort when read: only the names below are touched;
 * - the window length is not checked by the module: the caller passes exactly floatsPerWindow;
 * - every object the module returns is deleted, or its heap grows per call.
 */
import { createRequire } from 'node:module';

interface Deletable { delete?: () => void }
interface EmVector<T> extends Deletable { size(): number; get(i: number): T }
interface EmEntry extends Deletable { label: string; value: number }
interface EmResult extends Deletable {
  result: number;
  anomaly?: number;
  classification?: EmVector<EmEntry>;
  size?: () => number;
  get?: (i: number) => EmEntry;
}
export interface EmModule {
  onRuntimeInitialized?: () => void;
  init?: () => void;
  get_properties?: () => Record<string, unknown> & Deletable;
  get_project?: () => Record<string, unknown> & Deletable;
  run_classifier: (ptr: number, n: number, debug: boolean) => EmResult;
  run_classifier_continuous?: (ptr: number, n: number, debug: boolean, enablePerfCal: boolean) => EmResult;
  _malloc: (bytes: number) => number;
  _free: (ptr: number) => void;
  HEAPF32: Float32Array;
}

/** What the export says of itself, as read (axes may be unknown: old builds do not say). */
export interface RawProperties {
  sensor: number;
  frequency: number;
  frameSampleCount: number;
  inputWidth: number;
  inputHeight: number;
  inputFeaturesCount: number | null;
  labels: string[] | null;
  modelType: string | null;
  hasAnomaly: boolean | null;
  sliceSize: number | null;
  hasInit: boolean;
  continuous: boolean;
  project: { id: number | null; owner: string | null; name: string | null; deployVersion: number | null } | null;
}

export interface RawResult {
  /** 0 ok; negative: the module's error code (e.g. -5: the signal processing failed). */
  code: number;
  scores: Array<[string, number]>;
  anomaly: number | null;
}

/**
 * require()s the glue with fetch hidden, waits for its runtime, calls init() where the build has it.
 * `onAbort` hears what the module said when it aborted (its words, without the stack frames a debug
 * build appends to the error it throws): at start-up, later while classifying, or never.
 */
export function loadGlue(jsPath: string, onAbort: (what: string) => void = () => {}): Promise<EmModule> {
  const req = createRequire(jsPath);
  const g = globalThis as { fetch?: unknown };
  const fetch = g.fetch;
  const before = new Set(process.listeners('unhandledRejection'));
  let M: EmModule;
  delete g.fetch;
  try {
    M = req(jsPath) as EmModule;
  } finally {
    g.fetch = fetch;
    // The glue starts its wasm in promise chains nobody awaits: when the wasm does not compile it
    // aborts inside one, the chain rejects, and the glue's own unhandledRejection handler (abort,
    // in 2020-22 builds) aborts again, appends its stack frames and throws them out of the
    // thread. The abort was heard already (onAbort below); the worker handles the rejection.
    for (const h of process.listeners('unhandledRejection')) if (!before.has(h)) process.off('unhandledRejection', h);
  }
  if (typeof M !== 'object' || M === null) throw new Error('the file did not give an Emscripten Module object when loaded');
  return new Promise<EmModule>((resolve, reject) => {
    // Read by abort() at call time, before it throws: so a wasm that fails to start rejects this
    // load with the module's own words instead of leaving it to a stray rejection.
    (M as { onAbort?: (what: unknown) => void }).onAbort = (what) => {
      const text = abortText(what);
      onAbort(text);
      reject(new Error(text));
    };
    const ready = () => {
      try {
        if (typeof M.run_classifier !== 'function') throw new Error('the module has no run_classifier function: it is not a classifier export');
        if (typeof M.init === 'function') M.init();
        resolve(M);
      } catch (err) {
        reject(err);
      }
    };
    // Each worker requires the glue once, so its runtime has not started yet. (`calledRun`, which
    // would tell, is one of the debug build's aborting getters: never read it.)
    M.onRuntimeInitialized = ready;
  });
}

/** What an abort was given: an error (a CompileError when the wasm is damaged) or a sentence. */
function abortText(what: unknown): string {
  return what instanceof Error ? `${what.name}: ${what.message}` : String(what);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Reads the named fields one by one (they are getters), then deletes the object. */
export function readProperties(M: EmModule): RawProperties {
  if (typeof M.get_properties !== 'function') throw new Error('the module has no get_properties function: it is not a classifier export');
  const p = M.get_properties();
  if (typeof p !== 'object' || p === null) throw new Error(`get_properties returned ${shown(p)}, not the model's properties`);
  let out: RawProperties;
  try {
    const labelsVec = p['labels'] as EmVector<string> | undefined;
    let labels: string[] | null = null;
    if (labelsVec && typeof labelsVec.size === 'function') {
      labels = [];
      for (let i = 0; i < labelsVec.size(); i++) labels.push(String(labelsVec.get(i)));
      labelsVec.delete?.();
    }
    const hasAnomaly = p['has_anomaly'];
    out = {
      sensor: num(p['sensor']) ?? -1,
      frequency: num(p['frequency']) ?? 0,
      frameSampleCount: num(p['frame_sample_count']) ?? 0,
      inputWidth: num(p['input_width']) ?? 0,
      inputHeight: num(p['input_height']) ?? 0,
      inputFeaturesCount: num(p['input_features_count']),
      labels,
      modelType: str(p['model_type']),
      hasAnomaly: typeof hasAnomaly === 'boolean' ? hasAnomaly : typeof hasAnomaly === 'number' ? hasAnomaly !== 0 : null,
      sliceSize: num(p['slice_size']),
      hasInit: typeof M.init === 'function',
      continuous: typeof M.run_classifier_continuous === 'function',
      project: null,
    };
  } finally {
    p.delete?.();
  }
  if (typeof M.get_project === 'function') {
    const q = M.get_project();
    if (typeof q !== 'object' || q === null) return out;
    try {
      out.project = { id: num(q['id']), owner: str(q['owner']), name: str(q['name']), deployVersion: num(q['deploy_version']) };
    } finally {
      q.delete?.();
    }
  }
  return out;
}

/**
 * One input buffer in the module's heap, reused for every call (a malloc per window would only
 * churn its allocator). The HEAPF32 view is taken after each call that may grow the heap.
 */
export class Classifier {
  #ptr = 0;
  #capacity = 0;

  constructor(private readonly M: EmModule) {}

  /**
   * Classifies a whole window (or, continuous, one slice) of `count` floats. `values` may be longer
   * than `count`: the check of a model whose axes are unknown pads with zeros, so that a module
   * expecting more reads zeros rather than whatever lies past the buffer.
   */
  run(values: Float32Array, continuous = false, count = values.length): RawResult {
    const M = this.M;
    if (values.length > this.#capacity) {
      if (this.#ptr) M._free(this.#ptr);
      this.#ptr = M._malloc(values.length * 4);
      this.#capacity = values.length;
    }
    M.HEAPF32.set(values, this.#ptr >> 2);
    const r = continuous && M.run_classifier_continuous
      ? M.run_classifier_continuous(this.#ptr, count, false, false)
      : M.run_classifier(this.#ptr, count, false);
    return readResult(r);
  }

  dispose(): void {
    if (this.#ptr) this.M._free(this.#ptr);
    this.#ptr = 0;
    this.#capacity = 0;
  }
}

/**
 * A module that answered something that is not a result (null, `classification: 42`): it cannot
 * be read as scores, so it is said as such rather than taken as "no labels" or met as a TypeError
 * ("Cannot read properties of null (reading 'delete')").
 */
export class AnswerShapeError extends Error {
  override name = 'AnswerShapeError';
}
export const ANSWER_SHAPE_PREFIX = 'its answer';
const shape = (what: string): AnswerShapeError => new AnswerShapeError(`${ANSWER_SHAPE_PREFIX} ${what}`);
const shown = (v: unknown): string => (v === null || typeof v !== 'object' ? (JSON.stringify(v) ?? String(v)) : 'an object');
const isVector = (v: unknown): v is EmVector<unknown> => typeof v === 'object' && v !== null && typeof (v as EmVector<unknown>).size === 'function' && typeof (v as EmVector<unknown>).get === 'function';

/** Reads a result in either shape (2021+ builds: size/get on the result; older: r.classification), then frees all of it. */
function readResult(r: EmResult | null | undefined): RawResult {
  if (typeof r !== 'object' || r === null) throw shape(`is ${shown(r)}, not a result with labels and scores`);
  try {
    const code = num(r.result) ?? -1;
    const scores: Array<[string, number]> = [];
    const anomaly = num(r.anomaly);
    if (code === 0) {
      if (typeof r.size === 'function' && typeof r.get === 'function') {
        const n = r.size();
        for (let i = 0; i < n; i++) scores.push(readEntry(r.get(i), i));
      } else {
        const v: unknown = r.classification;
        if (!isVector(v)) throw shape(`has classification ${shown(v)}, not a list of labels and scores`);
        try {
          const n = v.size();
          for (let i = 0; i < n; i++) scores.push(readEntry(v.get(i) as EmEntry, i));
        } finally {
          v.delete?.();
        }
      }
    } else {
      // Still free the vector an old build hands back with an error code.
      const v: unknown = r.classification;
      if (isVector(v)) v.delete?.();
    }
    return { code, scores, anomaly };
  } finally {
    if (typeof r.delete === 'function') r.delete();
  }
}

function readEntry(e: EmEntry | null | undefined, i: number): [string, number] {
  if (typeof e !== 'object' || e === null) throw shape(`has ${shown(e)} as score ${i}, not a label and a score`);
  try {
    if (typeof e.label !== 'string' || typeof e.value !== 'number') throw shape(`has score ${i} as ${shown(e.label)} = ${shown(e.value)}, not a label and a number`);
    return [e.label, e.value];
  } finally {
    if (typeof e.delete === 'function') e.delete();
  }
}
