// Test model kit glue (NOT a real model). test-model.mjs fills the two @@ markers and writes this
// as edge-impulse-standalone.js. It imitates the calling conventions of the platform's Emscripten
// "WebAssembly" export (CommonJS, async wasm start, embind-like objects, debug-build traps, aborts)
// so a loader can be tested against the same pitfalls as a real export, with answers known ahead.
var Module = typeof Module !== 'undefined' ? Module : {};
var CONFIG = /*@@CONFIG@@*/ null;
var scoreWindow = /*@@SCORE@@*/ null;

var ABORT = false;
var runtimeInitialized = false;
var classifierInitialised = false; // new builds: Module.init() was called
var wasmMemory = null;
var wasmBinaryFile = __dirname + '/edge-impulse-standalone.wasm'; // like scriptDirectory + name
var out = function (s) { console.log(s); }; // debug prints go to stdout, like printf in a real build

module.exports = Module;

// Newer glue puts process-wide handlers that only re-throw: harmless in a process of its own,
// dangerous in a host process (they turn every stray rejection into a crash).
function ExitStatus(status) { this.name = 'ExitStatus'; this.status = status; }
if (CONFIG.faults.processHandlers) {
  process.on('uncaughtException', function (ex) { if (!(ex instanceof ExitStatus)) throw ex; });
  process.on('unhandledRejection', function (reason) { throw reason; });
}

// abort() kills this runtime for good: every later entry point re-aborts, as in Emscripten.
function abort(what) {
  if (typeof Module.onAbort === 'function') Module.onAbort(what);
  ABORT = true;
  // Debug builds append the JavaScript stack to the message (stackTrace()), frames and all.
  throw new WebAssembly.RuntimeError('abort(' + String(what) + ') at ' + new Error().stack);
}
function checkAlive(name) {
  if (ABORT) abort('program has already aborted! (' + name + ')');
}

class BindingError extends Error {
  constructor(message) { super(message); this.name = 'BindingError'; }
}
Module.BindingError = BindingError;

// Debug builds define names whose getters abort: a loader must never enumerate or read them.
// (Enumerable here on purpose, so Object.keys(Module) exposes a loader that iterates Module.)
['FS', 'ALLOC_NORMAL', 'ALLOC_STACK', 'TOTAL_MEMORY', 'thisProgram'].forEach(function (name) {
  Object.defineProperty(Module, name, {
    configurable: true,
    enumerable: true,
    get: function () { abort("'" + name + "' was not exported. add it to EXPORTED_RUNTIME_METHODS (see the FAQ)"); },
  });
});
['ccall', 'cwrap', 'getValue', 'setValue'].forEach(function (name) {
  Module[name] = function () { abort("'" + name + "' was not exported. add it to EXPORTED_RUNTIME_METHODS (see the FAQ)"); };
});

// ---- memory: views are plain properties, rebuilt after every growth (updateGlobalBufferAndViews)
function updateGlobalBufferAndViews(buf) {
  Module.HEAP8 = new Int8Array(buf);
  Module.HEAPU8 = new Uint8Array(buf);
  Module.HEAP16 = new Int16Array(buf);
  Module.HEAPU16 = new Uint16Array(buf);
  Module.HEAP32 = new Int32Array(buf);
  Module.HEAPU32 = new Uint32Array(buf);
  Module.HEAPF32 = new Float32Array(buf);
  Module.HEAPF64 = new Float64Array(buf);
}

// ---- a real allocator over the wasm memory: first-fit free list with coalescing, so balanced
// malloc/free keeps the heap flat while leaks make HEAPU8.length grow.
var HEAP_BASE = 1024; // below: "static data"; also keeps 0 from ever being a valid pointer
var heapTop = HEAP_BASE;
var freeList = []; // [{ ptr, size }] sorted by ptr
var allocated = new Map(); // ptr -> size

function growTo(end) {
  var have = wasmMemory.buffer.byteLength;
  var need = Math.ceil((end - have) / 65536);
  var generous = Math.max(need, Math.ceil(have / 65536 / 5)); // +20% like emscripten_resize_heap
  try { wasmMemory.grow(generous); } catch (e) {
    try { wasmMemory.grow(need); } catch (e2) {
      abort('Cannot enlarge memory arrays to size ' + end + ' bytes (OOM). Either (1) compile with -s INITIAL_MEMORY=X with X higher than the current value ' + have + ', (2) compile with -s ALLOW_MEMORY_GROWTH=1 which allows increasing the size at runtime, or (3) if you want malloc to return NULL (0) instead of this abort, compile with -s ABORTING_MALLOC=0');
    }
  }
  updateGlobalBufferAndViews(wasmMemory.buffer);
}

function _malloc(bytes) {
  checkAlive('_malloc');
  if (!runtimeInitialized) abort('native function `malloc` called before runtime initialization');
  var size = (Math.max(Number(bytes) >>> 0, 1) + 15) & ~15;
  for (var i = 0; i < freeList.length; i++) {
    var block = freeList[i];
    if (block.size < size) continue;
    if (block.size - size >= 16) { freeList[i] = { ptr: block.ptr + size, size: block.size - size }; }
    else { size = block.size; freeList.splice(i, 1); }
    allocated.set(block.ptr, size);
    return block.ptr;
  }
  var ptr = heapTop;
  if (ptr + size > wasmMemory.buffer.byteLength) growTo(ptr + size);
  heapTop = ptr + size;
  allocated.set(ptr, size);
  return ptr;
}

function _free(ptr) {
  checkAlive('_free');
  if (!ptr) return;
  var size = allocated.get(ptr);
  if (size === undefined) abort('free(): invalid pointer ' + ptr); // double free or a foreign pointer
  allocated.delete(ptr);
  var i = 0;
  while (i < freeList.length && freeList[i].ptr < ptr) i++;
  freeList.splice(i, 0, { ptr: ptr, size: size });
  if (i + 1 < freeList.length && ptr + size === freeList[i + 1].ptr) { // merge with next
    freeList[i].size += freeList[i + 1].size; freeList.splice(i + 1, 1);
  }
  if (i > 0 && freeList[i - 1].ptr + freeList[i - 1].size === ptr) { // merge with previous
    freeList[i - 1].size += freeList[i].size; freeList.splice(i, 1); i--;
  }
  if (freeList[i].ptr + freeList[i].size === heapTop) { heapTop = freeList[i].ptr; freeList.splice(i, 1); }
}
Module._malloc = _malloc;
Module._free = _free;

// ---- embind-like classes: fields are getters on the prototype (JSON.stringify gives {}), each
// live handle owns 256 bytes of wasm heap until delete(); use after delete() kills the runtime.
Module.__testLiveObjects = 0;
function deadHandle(what) {
  ABORT = true;
  throw new BindingError('cannot call emscripten binding method ' + what + ' on deleted object');
}
function makeClass(name, fields, methods) {
  function Handle() { throw new BindingError(name + ' has no accessible constructor'); }
  var proto = Handle.prototype;
  function state(self, what) {
    if (!self.$$.ptr) deadHandle(name + '.' + what);
    checkAlive(name + '.' + what);
    return self.$$.state;
  }
  Object.keys(fields).forEach(function (f) {
    Object.defineProperty(proto, f, {
      configurable: true,
      enumerable: true,
      get: function () { return fields[f](state(this, f)); },
    });
  });
  Object.keys(methods).forEach(function (m) {
    proto[m] = function () { return methods[m].apply(null, [state(this, m)].concat([].slice.call(arguments))); };
  });
  proto.delete = function () {
    if (!this.$$.ptr) deadHandle(name + '.delete');
    checkAlive(name + '.delete');
    _free(this.$$.ptr);
    this.$$.ptr = 0;
    Module.__testLiveObjects--;
  };
  proto.isDeleted = function () { return !this.$$.ptr; };
  return function create(st) {
    var ptr = _malloc(256);
    Module.__testLiveObjects++;
    return Object.create(proto, { $$: { value: { ptr: ptr, state: st } } });
  };
}

var newEntry = makeClass('ClassificationEntry', {
  label: function (s) { return s.label; },
  value: function (s) { return s.value; },
}, {});
// std::vector<T> as embind registers it: out of range get() gives undefined.
function vectorMethods(wrap) {
  return {
    size: function (s) { return s.items.length; },
    get: function (s, i) { return i >= 0 && i < s.items.length ? wrap(s.items[i]) : undefined; },
  };
}
var newEntryVector = makeClass('VectorClassification', {}, vectorMethods(newEntry));
var newStringVector = makeClass('VectorString', {}, vectorMethods(function (x) { return x; }));

var resultFields = {
  result: function (s) { return s.result; },
  anomaly: function (s) { return s.anomaly; },
  // A by-value vector: every read is a new handle that must be deleted (a classic leak).
  classification: function (s) { return newEntryVector({ items: s.items }); },
};
var newResult = makeClass('ClassifierResult', resultFields,
  CONFIG.generation === 'new' ? vectorMethods(newEntry) : {});

var propertyFields = {
  sensor: function () { return CONFIG.sensor; },
  frequency: function () { return CONFIG.frequency; },
  frame_sample_count: function () { return CONFIG.frameSampleCount; },
  input_width: function () { return CONFIG.inputWidth; },
  input_height: function () { return CONFIG.inputHeight; },
};
if (CONFIG.generation === 'new') {
  propertyFields.input_features_count = function () { return CONFIG.frameSampleCount * CONFIG.axes; };
  propertyFields.label_count = function () { return CONFIG.labels.length; };
  propertyFields.labels = function () { return newStringVector({ items: CONFIG.labels }); };
  propertyFields.model_type = function () { return CONFIG.modelType; };
  propertyFields.has_anomaly = function () { return CONFIG.hasAnomaly; };
  propertyFields.interval_ms = function () { return CONFIG.frequency > 0 ? 1000 / CONFIG.frequency : 1; };
  propertyFields.slice_size = function () { return CONFIG.sliceSize; };
}
var newProperties = makeClass('ClassifierProperties', propertyFields, {});
var newProject = makeClass('ProjectInfo', {
  id: function () { return 424242; },
  owner: function () { return 'Capture Desk test kit'; },
  name: function () { return 'test model (' + CONFIG.labels.join(', ') + ')'; },
  deploy_version: function () { return 7; },
}, {});

// ---- classification
function checkArgs(name, args, expected) {
  // embind checks arity and throws (without aborting) - real builds do the same.
  if (args.length !== expected) {
    throw new BindingError('function ' + name + ' called with ' + args.length + ' arguments, expected ' + expected + ' args!');
  }
}
function busyWait(ms) { var end = Date.now() + ms; while (Date.now() < end) { /* a slow model */ } }

function readInput(name, ptr, n) {
  ptr = Number(ptr) >>> 0; n = Number(n) >>> 0;
  if (ptr + 4 * n > Module.HEAPU8.length) abort('memory access out of bounds (' + name + ')');
  // Not checked against the window length: like real builds, it reads what it is told.
  var values = Module.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + n);
  var anyNonZero = false;
  for (var i = 0; i < values.length; i++) {
    if (values[i] !== 0) anyNonZero = true;
    if (CONFIG.faults.abortWhenAbove !== null && values[i] > CONFIG.faults.abortWhenAbove) {
      abort('Assertion failed: input value ' + values[i] + ' out of range, at: dsp/spectral.cpp:118 (test kit abortWhenAbove)');
    }
  }
  if (!anyNonZero && CONFIG.faults.abortOnZeros) {
    abort('Assertion failed: log of zero power, at: dsp/mfcc.cpp:206 (test kit abortOnZeros)');
  }
  return values;
}

// Like the C side: a failed call still lists every label, with zero values.
function resultFor(code, answer) {
  var items = CONFIG.labels.map(function (label, i) { return { label: label, value: answer ? answer.scores[i] : 0 }; });
  var anomaly = answer && answer.anomaly !== null ? answer.anomaly : 0;
  return newResult({ result: code, anomaly: anomaly, items: items });
}

function run_classifier(ptr, n, debug) {
  checkArgs('run_classifier', arguments, 3);
  checkAlive('run_classifier');
  busyWait(CONFIG.faults.slowMs);
  if (CONFIG.generation === 'new' && !classifierInitialised) return resultFor(-1, null);
  var values = readInput('run_classifier', ptr, n);
  if (CONFIG.faults.resultError) return resultFor(CONFIG.faults.resultError, null);
  var answer = scoreWindow(values, values.length, CONFIG);
  if (debug) out('Running impulse... energy ' + answer.energy + '\nDSP: 0 ms., Classification: 0 ms., Anomaly: 0 ms.');
  return resultFor(0, answer);
}

var rolling = null; // continuous mode keeps the last full window inside, fed slice by slice
function run_classifier_continuous(ptr, n, debug, enablePerfCal) {
  checkArgs('run_classifier_continuous', arguments, 4);
  checkAlive('run_classifier_continuous');
  busyWait(CONFIG.faults.slowMs);
  if (!classifierInitialised || Number(n) !== CONFIG.sliceSize) return resultFor(-1, null);
  var values = readInput('run_classifier_continuous', ptr, n);
  rolling.copyWithin(0, values.length);
  rolling.set(values, rolling.length - values.length);
  if (CONFIG.faults.resultError) return resultFor(CONFIG.faults.resultError, null);
  var answer = scoreWindow(rolling, rolling.length, CONFIG);
  if (debug) out('Running impulse (continuous)... energy ' + answer.energy);
  return resultFor(0, answer);
}

// embind functions appear on Module only when the runtime starts (static constructors).
function registerBindings() {
  Module.run_classifier = run_classifier;
  Module.get_properties = function () { checkAlive('get_properties'); return newProperties({}); };
  if (CONFIG.generation !== 'new') return;
  Module.init = function () {
    checkAlive('init');
    classifierInitialised = true;
    rolling = new Float32Array(Math.max(CONFIG.frameSampleCount * CONFIG.axes, CONFIG.sliceSize));
  };
  Module.run_classifier_continuous = run_classifier_continuous;
  Module.get_project = function () { checkAlive('get_project'); return newProject({}); };
}

// ---- start-up: asynchronous, like instantiateAsync
function receiveInstance(instance) {
  Module.asm = instance.exports;
  wasmMemory = instance.exports.memory;
  updateGlobalBufferAndViews(wasmMemory.buffer);
  if (CONFIG.faults.neverStarts) return; // stuck on a run dependency forever
  setTimeout(function () {
    if (ABORT) return;
    runtimeInitialized = true;
    registerBindings();
    Module.calledRun = true;
    if (typeof Module.onRuntimeInitialized === 'function') Module.onRuntimeInitialized();
  }, CONFIG.faults.startDelayMs);
}
var info = { env: {}, wasi_snapshot_preview1: {} };
if (typeof fetch === 'function') {
  // The old glue prefers streaming: Node's fetch cannot take a file path, so this aborts.
  fetch(wasmBinaryFile, { credentials: 'same-origin' })
    .then(function (response) { return WebAssembly.instantiateStreaming(response, info); })
    .then(function (output) { receiveInstance(output.instance); })
    .catch(function (reason) { abort(reason); });
} else {
  new Promise(function (resolve) { resolve(require('fs').readFileSync(wasmBinaryFile)); })
    .then(function (binary) { return WebAssembly.instantiate(binary, info); })
    .then(function (output) { receiveInstance(output.instance); }, function (reason) { abort(reason); });
}
