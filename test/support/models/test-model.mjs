// Test model kit: writes a stand-in for the platform's "WebAssembly export" (edge-impulse-standalone.js
// + .wasm) with the real export's calling conventions and answers known in advance, so loader tests,
// benchmarks and child processes never need a real export. Plain JS so anything can import it.
// What the glue does is described in glue-template.cjs and in /work/shared/spec/wasm-model.md.
import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateRawSync } from 'node:zlib';

export const GLUE_FILE = 'edge-impulse-standalone.js';
export const WASM_FILE = 'edge-impulse-standalone.wasm';

const TEMPLATE_URL = new URL('./glue-template.cjs', import.meta.url);

/** Fills defaults and rejects options that could not describe a model (so tests fail early). */
function normalise(opts) {
  const axes = opts.axes;
  if (!Number.isInteger(axes) || axes < 1) throw new Error(`test model: axes must be an integer >= 1, got ${axes}`);
  if (!Array.isArray(opts.labels) || opts.labels.length === 0) throw new Error('test model: labels must not be empty');
  if (!Number.isInteger(opts.frameSampleCount) || opts.frameSampleCount < 0) {
    throw new Error(`test model: frameSampleCount must be an integer >= 0, got ${opts.frameSampleCount}`);
  }
  const rule = opts.rule ?? { levels: [] };
  const levels = [...rule.levels];
  if (levels.length > opts.labels.length - 1) throw new Error('test model: more rule levels than label boundaries');
  const axis = rule.axis ?? 0;
  if (!Number.isInteger(axis) || axis < 0 || axis >= axes) throw new Error(`test model: rule axis ${axis} not in 0..${axes - 1}`);
  const f = opts.faults ?? {};
  return {
    generation: opts.generation === 'new' ? 'new' : 'old',
    sensor: opts.sensor ?? 2,
    frequency: opts.frequency,
    frameSampleCount: opts.frameSampleCount,
    axes,
    labels: [...opts.labels],
    rule: { axis, levels, uncertainBand: rule.uncertainBand ?? 0.1 },
    hasAnomaly: opts.hasAnomaly ?? false,
    modelType: opts.modelType ?? 'classification',
    inputWidth: opts.inputWidth ?? 0,
    inputHeight: opts.inputHeight ?? 0,
    sliceSize: opts.sliceSize ?? Math.max(1, Math.floor((opts.frameSampleCount * axes) / 4)),
    faults: {
      abortOnZeros: f.abortOnZeros ?? false,
      abortWhenAbove: f.abortWhenAbove ?? null,
      neverStarts: f.neverStarts ?? false,
      startDelayMs: f.startDelayMs ?? 0,
      processHandlers: f.processHandlers ?? false,
      resultError: f.resultError ?? 0,
      slowMs: f.slowMs ?? 0,
    },
  };
}

/**
 * The "model". Kept as source text and compiled here with new Function, and pasted verbatim into
 * the glue, so both compute identical numbers even when a test runner instruments or rewrites this
 * module (coverage counters or keepNames helpers inside a toString() would break the glue).
 * Returns { energy, top, confidence, scores (label order), anomaly (null without anomaly block) }.
 */
const SCORE_SOURCE = `function scoreWindow(values, n, cfg) {
  var axes = cfg.axes, axis = cfg.rule.axis, levels = cfg.rule.levels, k = cfg.labels.length;
  var round4 = function (x) { return Math.round(x * 1e4) / 1e4; };
  var sum = 0, count = 0, peak = 0;
  for (var i = axis; i < n; i += axes) { sum += Math.abs(values[i]); count++; }
  for (var j = 0; j < n; j++) { if (Math.abs(values[j]) > peak) peak = Math.abs(values[j]); }
  var energy = count ? sum / count : 0;
  var top = 0, uncertain = false;
  for (var l = 0; l < levels.length; l++) {
    if (levels[l] <= energy) top++;
    if (Math.abs(energy - levels[l]) <= cfg.rule.uncertainBand * Math.abs(levels[l])) uncertain = true;
  }
  top = Math.min(top, k - 1);
  var confidence = uncertain ? 0.55 : 0.95;
  // Others share the rest equally; the last of them absorbs the rounding so the sum is 1.
  var share = k > 1 ? round4((1 - confidence) / (k - 1)) : 0;
  var scores = [], others = 0;
  for (var s = 0; s < k; s++) {
    if (s === top) { scores.push(confidence); continue; }
    others++;
    scores.push(others === k - 1 ? round4(1 - confidence - share * (k - 2)) : share);
  }
  var anomaly = cfg.hasAnomaly ? round4(peak / 100) : null;
  return { energy: energy, top: top, confidence: confidence, scores: scores, anomaly: anomaly };
}`;
const scoreWindow = new Function(`return ${SCORE_SOURCE}`)();

/** The .js text of an export with these options. */
export function testModelGlue(opts) {
  const cfg = normalise(opts);
  return readFileSync(TEMPLATE_URL, 'utf8')
    .replace('/*@@CONFIG@@*/ null', () => JSON.stringify(cfg))
    .replace('/*@@SCORE@@*/ null', () => SCORE_SOURCE); // a function: no $-patterns
}

/**
 * A real, valid, tiny wasm module that only exports its memory: 2 pages (128 KiB) initially,
 * growable up to 2048 pages (128 MiB, what real builds reserve), so leaks end in a real OOM abort.
 */
export function testModelWasm() {
  const tag = [...new TextEncoder().encode('capture-desk-test-model')];
  const custom = [tag.length, ...tag]; // custom section: a name to recognise the kit's files by
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
    0x00, custom.length, ...custom,
    0x05, 0x05, 0x01, 0x01, 0x02, 0x80, 0x10, // memory section: 1 memory, min 2, max 2048 (LEB128)
    0x07, 0x0a, 0x01, 0x06, ...new TextEncoder().encode('memory'), 0x02, 0x00, // export "memory"
  ]);
}

/** Writes edge-impulse-standalone.js/.wasm into dir (created if missing). */
export async function writeTestModel(dir, opts) {
  await mkdir(dir, { recursive: true });
  const js = path.join(dir, GLUE_FILE);
  const wasm = path.join(dir, WASM_FILE);
  await writeFile(js, testModelGlue(opts));
  await writeFile(wasm, testModelWasm());
  return { dir, js, wasm };
}

/** What the model will answer for this window (the same computation the glue runs). */
export function expectedTop(opts, window) {
  const cfg = normalise(opts);
  const values = window instanceof Float32Array ? window : Float32Array.from(window); // glue sees f32
  const a = scoreWindow(values, values.length, cfg);
  const scores = {};
  cfg.labels.forEach((label, i) => { scores[label] = a.scores[i]; });
  return { label: cfg.labels[a.top], confidence: a.confidence, scores, anomaly: a.anomaly };
}

/**
 * A full window (frameSampleCount × axes floats, interleaved) whose rule axis has mean |x| =
 * energy (alternating sign), while the other axes hold 50 + axis: reading the wrong axis or the
 * wrong interleaving gives a different answer. Convenience for tests.
 */
export function windowWithEnergy(opts, energy) {
  const cfg = normalise(opts);
  const w = new Float32Array(cfg.frameSampleCount * cfg.axes);
  for (let i = 0; i < w.length; i++) {
    const axis = i % cfg.axes;
    const sample = Math.floor(i / cfg.axes);
    w[i] = axis === cfg.rule.axis ? (sample % 2 ? -energy : energy) : 50 + axis;
  }
  return w;
}

/**
 * Rows of readings (one array a row) made of one window per energy, in order: window k is
 * windowWithEnergy(opts, energies[k]). `axes`: keep only each row's first so many axes.
 */
export function rowsWithEnergies(opts, energies, axes) {
  const cfg = normalise(opts);
  const rows = [];
  for (const e of energies) {
    const w = windowWithEnergy(opts, e);
    for (let r = 0; r < cfg.frameSampleCount; r++) rows.push(Array.from(w.subarray(r * cfg.axes, r * cfg.axes + (axes ?? cfg.axes))));
  }
  return rows;
}

// ---- zip: enough of PKZIP (local headers, deflate, central directory, CRC-32) for unzip/yauzl.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(buf) {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function zipEntries(entries) {
  const DOS_TIME = 0; // 00:00:00
  const DOS_DATE = ((2024 - 1980) << 9) | (1 << 5) | 1; // 2024-01-01: fixed, so zips are reproducible
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    const flags = /[^\x20-\x7e]/.test(name) ? 0x0800 : 0; // bit 11: UTF-8 name
    // From "version needed" to the name's length, the local header and the central directory
    // entry hold the same fields; they only start at different offsets.
    const common = (b, at) => {
      b.writeUInt16LE(20, at); // version needed
      b.writeUInt16LE(flags, at + 2);
      b.writeUInt16LE(8, at + 4); // deflate
      b.writeUInt16LE(DOS_TIME, at + 6);
      b.writeUInt16LE(DOS_DATE, at + 8);
      b.writeUInt32LE(crc, at + 10);
      b.writeUInt32LE(packed.length, at + 14);
      b.writeUInt32LE(data.length, at + 18);
      b.writeUInt16LE(nameBytes.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4); // extra field length (28): none
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0 (so permissions below apply)
    common(central, 6);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: regular file rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, packed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + packed.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/**
 * Zips the export in dir (both files at top level, or only the names in `only`) plus `extra`
 * files (name → content; names may contain '/' to make folders) into zipPath.
 */
export async function zipTestModel(dir, zipPath, opts = {}) {
  const names = opts.only ?? [GLUE_FILE, WASM_FILE];
  const entries = [];
  for (const name of names) entries.push({ name, data: await readFile(path.join(dir, name)) });
  for (const [name, content] of Object.entries(opts.extra ?? {})) {
    entries.push({ name, data: typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content) });
  }
  await mkdir(path.dirname(zipPath), { recursive: true });
  await writeFile(zipPath, zipEntries(entries));
  return zipPath;
}

const gesture = {
  sensor: 2,
  frequency: 62.5,
  frameSampleCount: 125,
  axes: 3,
  labels: ['idle', 'wave'],
  rule: { axis: 0, levels: [2.0] },
};
const audio = {
  sensor: 1,
  frequency: 16000,
  frameSampleCount: 16000,
  axes: 1,
  labels: ['noise', 'tone'],
  rule: { levels: [1000] },
};

/** Deep-frozen so one test cannot change a preset under another. */
function freeze(o) {
  for (const v of Object.values(o)) if (v && typeof v === 'object') freeze(v);
  return Object.freeze(o);
}

/** Ready-made models. Spread and override: `{ ...PRESETS.gestureNew, faults: { slowMs: 5 } }`. */
export const PRESETS = freeze({
  gestureOld: { generation: 'old', ...gesture },
  gestureNew: { generation: 'new', ...gesture },
  audioNew: { generation: 'new', ...audio },
  audioOld: { generation: 'old', ...audio },
  // Image exports report frequency 0 and one float per pixel (packed RGB): frame_sample_count = w*h.
  image: {
    generation: 'new',
    sensor: 3,
    frequency: 0,
    frameSampleCount: 96 * 96,
    axes: 1,
    labels: ['cup'],
    inputWidth: 96,
    inputHeight: 96,
    modelType: 'object_detection',
  },
});
