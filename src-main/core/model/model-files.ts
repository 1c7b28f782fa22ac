import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { CoreError } from '../errors.js';
import { readZip, ZipError } from './zip-read.js';

/** The two files of an export, as bytes, whatever they came in. */
export interface ExportFiles {
  jsName: string;
  js: Buffer;
  wasmName: string;
  wasm: Buffer;
  /** A name to suggest (the zip's or the folder's). */
  suggestedName: string;
}

const GLUE = 'edge-impulse-standalone';
const refuse = (message: string): CoreError => new CoreError('InvalidArguments', message);

/** The export's two files from its .zip, its unpacked folder, or the .js inside it. */
export async function readExport(path: string): Promise<ExportFiles> {
  let st;
  try {
    st = await stat(path);
  } catch {
    throw refuse(`There is no file or folder at ${path}. Give the export's .zip, its unpacked folder, or the edge-impulse-standalone.js inside it.`);
  }
  if (st.isDirectory()) return fromFolder(path);
  const ext = extname(path).toLowerCase();
  if (ext === '.zip') return fromZip(path);
  if (ext === '.js' || ext === '.cjs') return fromJs(path);
  throw refuse(`${basename(path)} is not a model export: give the .zip the platform's deployment page made (WebAssembly), its unpacked folder, or the .js inside it.`);
}

async function fromZip(path: string): Promise<ExportFiles> {
  let entries;
  try {
    entries = readZip(await readFile(path));
  } catch (err) {
    if (err instanceof ZipError) throw refuse(`${basename(path)} could not be read as a zip: ${err.message} Download the export again.`);
    throw err;
  }
  const files = entries.filter((e) => !e.isDirectory);
  const pair = pickPair(files.map((e) => e.name));
  if (!pair) {
    const names = files.map((e) => e.name);
    const held = names.length ? `it holds ${listNames(names)}` : 'it is empty';
    throw refuse(`${basename(path)} does not hold the export's two files (${GLUE}.js and ${GLUE}.wasm): ${held}. Choose "WebAssembly" on the platform's deployment page and add the zip it gives.`);
  }
  const js = files.find((e) => e.name === pair.js)!;
  const wasm = files.find((e) => e.name === pair.wasm)!;
  return { jsName: basename(pair.js), js: js.read(), wasmName: basename(pair.wasm), wasm: wasm.read(), suggestedName: basename(path).replace(/\.zip$/i, '') };
}

async function fromFolder(dir: string): Promise<ExportFiles> {
  const names = await readdir(dir);
  const pair = pickPair(names);
  if (!pair) {
    throw refuse(`The folder ${dir} does not hold the export's two files (${GLUE}.js and ${GLUE}.wasm)${names.length ? `: it holds ${listNames(names)}` : ': it is empty'}.`);
  }
  return { jsName: pair.js, js: await readFile(join(dir, pair.js)), wasmName: pair.wasm, wasm: await readFile(join(dir, pair.wasm)), suggestedName: basename(dir) };
}

async function fromJs(path: string): Promise<ExportFiles> {
  const wasmPath = path.replace(/\.c?js$/i, '.wasm');
  let wasm;
  try {
    wasm = await readFile(wasmPath);
  } catch {
    throw refuse(`${basename(path)} needs its WebAssembly beside it (${basename(wasmPath)}), and it is not there. Add the export's whole .zip or folder.`);
  }
  const dir = dirname(path);
  return { jsName: basename(path), js: await readFile(path), wasmName: basename(wasmPath), wasm, suggestedName: basename(dir) };
}

/** The glue and its wasm: the export's own names first, else any X.js with an X.wasm beside it. */
function pickPair(names: string[]): { js: string; wasm: string } | null {
  const set = new Set(names);
  const byDepth = [...names].sort((a, b) => a.split('/').length - b.split('/').length);
  for (const js of byDepth.filter((n) => basename(n) === `${GLUE}.js`)) {
    const wasm = js.replace(/\.js$/, '.wasm');
    if (set.has(wasm)) return { js, wasm };
  }
  for (const js of byDepth.filter((n) => /\.c?js$/i.test(n))) {
    const wasm = js.replace(/\.c?js$/i, '.wasm');
    if (set.has(wasm)) return { js, wasm };
  }
  return null;
}

function listNames(names: string[]): string {
  const shown = names.slice(0, 6).join(', ');
  return names.length > 6 ? `${shown} and ${names.length - 6} more` : shown;
}

/** Cheap look at the text before running it: Emscripten glue starts a WebAssembly runtime. */
export function checkGlue(js: Buffer, jsName: string): void {
  const text = js.toString('utf8', 0, Math.min(js.length, 4_000_000));
  if (!text.includes('onRuntimeInitialized') || !/WebAssembly/.test(text)) {
    throw refuse(`${jsName} is not the export's glue (it does not start a WebAssembly runtime). Add ${GLUE}.js from the platform's WebAssembly export, not run-impulse.js or another script.`);
  }
}

export function checkWasm(wasm: Buffer, wasmName: string, from: string): void {
  if (wasm.length < 8 || wasm.readUInt32BE(0) !== 0x0061736d) throw refuse(`${wasmName} is not WebAssembly (it does not begin with the \\0asm marker). Download the export again.`);
  const needs = wasmSectionsEnd(wasm);
  if (needs > wasm.length) {
    throw refuse(`${wasmName} in ${from} looks cut short (an interrupted download?): its sections need at least ${needs} bytes and the file holds ${wasm.length}. Download the export again from the platform's deployment page and add the new one.`);
  }
}

/**
 * Where the module's last section ends, by its own section headers (an id byte, then the size as
 * LEB128). A file cut short ends before that; its start compiles as far as the cut and then fails
 * inside the engine, so this says it before anything is started.
 */
export function wasmSectionsEnd(wasm: Uint8Array): number {
  let at = 8;
  while (at < wasm.length) {
    at++; // section id
    let size = 0;
    let shift = 0;
    for (;;) {
      if (at >= wasm.length) return wasm.length + 1; // cut inside a header
      const b = wasm[at++]!;
      size += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) break;
      if (shift > 35) return at; // not LEB128 for a u32: leave it to the engine
    }
    at += size;
  }
  return at;
}

export const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
