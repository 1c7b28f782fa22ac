// One set of native modules for Node and Electron: every .node file a production install contains
// must be a Node-API module (exports napi_register_module_v1), never one built for a single
// runtime's ABI (node_register_module_v<N>, e.g. v115 for Node 20), which Electron refuses to load.
// Checked where the app gets its binaries from: the packaged app (an offline `electron-builder
// --linux dir` build, resources/app.asar.unpacked) and the repository's production dependencies
// (what the CLI, the tests and `npm start` load). Symbols are read with binutils' nm.
//
// Needs the app's build output for the packaged half: run `npm run build` first (npm test does).
import { execFileSync } from 'node:child_process';
import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLinuxDir, ROOT, type LinuxDirBuild } from './linux-dir.js';

type Registration = 'node-api' | 'abi-bound' | 'none';

interface NativeFile {
  path: string;
  registration: Registration;
  /** The registration symbols found, e.g. ['napi_register_module_v1'] or ['node_register_module_v115']. */
  symbols: string[];
}

/** How a shared object registers itself with the runtime, from its defined dynamic symbols. */
function registration(path: string): NativeFile {
  let out: string;
  try {
    out = execFileSync('nm', ['-D', '--defined-only', path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error('nm is missing: install binutils (apt-get install binutils, see .ci/system-deps.sh).');
    throw new Error(`nm could not read ${path}: ${e.stderr ?? e.message}`);
  }
  const symbols = out.split('\n').map((l) => l.trim().split(/\s+/).at(-1) ?? '').filter((s) => /^(napi_register_module_v\d+|node_register_module_v\d+)$/.test(s));
  const abiBound = symbols.some((s) => s.startsWith('node_register_module_v'));
  const napi = symbols.includes('napi_register_module_v1');
  return { path, symbols, registration: abiBound ? 'abi-bound' : napi ? 'node-api' : 'none' };
}

function isElf(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

/** Every .node file below `dir`; `skipNested` leaves nested node_modules to their own listing. */
function findNodeFiles(dir: string, skipNested = false): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (!(skipNested && e.name === 'node_modules')) walk(p);
      } else if (e.name.endsWith('.node') && lstatSync(p).isFile()) found.push(p);
    }
  };
  walk(dir);
  return found;
}

/** The folders of the production dependencies as npm resolved them (no devDependencies). */
function productionPackageDirs(): string[] {
  const out = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return [...new Set(out.split('\n').map((l) => l.trim()).filter((l) => l !== '' && l !== ROOT))];
}

/** Package name of a file under node_modules, e.g. '@libsql/linux-x64-gnu' or 'keytar'. */
function packageOf(path: string): string {
  const parts = path.split(sep);
  const i = parts.lastIndexOf('node_modules');
  return parts[i + 1]!.startsWith('@') ? `${parts[i + 1]}/${parts[i + 2]}` : parts[i + 1]!;
}

/** What the assertions report: every file that is not Node-API, with what it exports instead. */
function notNodeApi(files: NativeFile[], base: string): string[] {
  return files.filter((f) => f.registration !== 'node-api').map((f) => `${relative(base, f.path)}: ${f.registration} (${f.symbols.join(', ') || 'no registration symbol'})`);
}

// The native modules the app is known to carry on linux x64; a new one is fine (it is checked
// like the others), one of these missing means the search looked in the wrong place.
const EXPECTED = ['@serialport/bindings-cpp', 'keytar', 'node-web-audio-api', '@cbor-extract/cbor-extract-linux-x64', '@libsql/linux-x64-gnu'];

describe('native modules are Node-API (the same binaries load in Node and Electron)', () => {
  it('the check tells an ABI-bound module from a Node-API one (better-sqlite3, a devDependency, is ABI-bound)', () => {
    const require = createRequire(join(ROOT, 'package.json'));
    const better = findNodeFiles(join(dirname(require.resolve('better-sqlite3/package.json')), 'build/Release'), true).find((f) => f.endsWith('better_sqlite3.node'));
    expect(better, 'better-sqlite3 is installed as a devDependency for this control').toBeDefined();
    const control = registration(better!);
    expect(control.registration).toBe('abi-bound');
    expect(control.symbols).toEqual([expect.stringMatching(/^node_register_module_v\d+$/)]);
    expect(notNodeApi([control], ROOT)).toEqual([expect.stringContaining('better_sqlite3.node: abi-bound (node_register_module_v')]);
    // And the positive side on the binding that replaced it.
    const libsql = registration(join(dirname(require.resolve('@libsql/linux-x64-gnu/package.json', { paths: [dirname(require.resolve('libsql'))] })), 'index.node'));
    expect(libsql).toMatchObject({ registration: 'node-api', symbols: ['napi_register_module_v1'] });
  });

  describe('in the production dependencies of this checkout', () => {
    const dirs = productionPackageDirs();
    const files = dirs.flatMap((d) => findNodeFiles(d, true));
    // Binaries for other operating systems (Mach-O, PE) that some packages ship beside Linux's.
    const foreign = files.filter((f) => !isElf(f));
    const elf = files.filter((f) => isElf(f)).map(registration);

    it('finds the native modules we expect, and better-sqlite3 is not among them', () => {
      expect(dirs.length).toBeGreaterThan(10);
      const packages = new Set(elf.map((f) => packageOf(f.path)));
      for (const name of EXPECTED) expect([...packages], `${name} has a Linux .node file`).toContain(name);
      expect([...packages]).not.toContain('better-sqlite3');
      expect(dirs.some((d) => d.endsWith(`${sep}better-sqlite3`)), 'better-sqlite3 must stay a devDependency').toBe(false);
    });

    it('every Linux .node file exports napi_register_module_v1 and no node_register_module_v*', () => {
      expect(elf.length).toBeGreaterThan(EXPECTED.length);
      expect(notNodeApi(elf, ROOT)).toEqual([]);
    });

    it('the binaries nm cannot check here are for other operating systems only', () => {
      expect(foreign.map((f) => relative(ROOT, f)).filter((f) => !/darwin|win32/.test(f))).toEqual([]);
    });
  });

  describe('in the packaged app (offline electron-builder --linux dir)', () => {
    let build: LinuxDirBuild;
    let files: NativeFile[];
    let unpackedDir: string;

    beforeAll(async () => {
      build = await buildLinuxDir({ prefix: 'cd-native-abi-' });
      unpackedDir = join(build.unpacked, 'resources/app.asar.unpacked');
      files = findNodeFiles(unpackedDir).map(registration);
    }, 180_000);
    afterAll(() => build?.dispose());

    it('holds the native modules we expect, unpacked so they can be dlopen()ed', () => {
      const packages = new Set(files.map((f) => packageOf(f.path)));
      for (const name of EXPECTED) expect([...packages], `${name} is in app.asar.unpacked`).toContain(name);
      // Every .node the archive lists is among the unpacked files checked here.
      const listed = build.entries.filter((e) => e.endsWith('.node')).map((e) => join(unpackedDir, ...e.split('/')));
      expect(listed.length).toBeGreaterThan(0);
      expect(listed.filter((p) => !files.some((f) => f.path === p))).toEqual([]);
    });

    it('every .node file is a Linux ELF that exports napi_register_module_v1 and no node_register_module_v*', () => {
      expect(files.length).toBeGreaterThan(EXPECTED.length);
      expect(files.filter((f) => !isElf(f.path)).map((f) => relative(unpackedDir, f.path))).toEqual([]);
      expect(notNodeApi(files, unpackedDir)).toEqual([]);
    });
  });
});
