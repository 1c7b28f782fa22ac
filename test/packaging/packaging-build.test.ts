// Packaging checks on a real offline `electron-builder --linux dir` build of the app: its app.asar
// is inspected and its native modules are loaded (the configuration itself: packaging.test.ts).
//
// Needs the app's build output: run `npm run build` first (npm test does).
// The Electron binary cannot be downloaded here, so the build uses a stand-in Electron directory
// (electronDist); everything else is electron-builder's real code path, with no network.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { copyFileSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultModelWorkerPath } from '../../src-main/core/model/model-runner.js';
import { extractAll, extractFile, statFile } from '@electron/asar';
import { build as esbuild } from 'esbuild';
import { run } from './helpers.js';
import { buildLinuxDir, type LinuxDirBuild } from './linux-dir.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; productName?: string; main: string; type?: string; dependencies: Record<string, string> };
const RULE_NAME = '99-capture-desk.rules';
const RULE_SOURCE = join(ROOT, 'resources/linux', RULE_NAME);

describe('electron-builder --linux dir (offline, stand-in Electron)', () => {
  let build: LinuxDirBuild;
  let work = '';
  let cacheDir = '';
  let unpacked = '';
  let asarPath = '';
  let entries: string[] = [];
  let buildOutput = '';
  let buildSeconds = 0;

  beforeAll(async () => {
    build = await buildLinuxDir();
    ({ work, cacheDir, unpacked, asarPath, entries, output: buildOutput, seconds: buildSeconds } = build);
  }, 180_000);

  afterAll(() => build?.dispose());

  it('builds with electron-builder.yml, without downloading anything', () => {
    console.log(`electron-builder --linux dir took ${buildSeconds.toFixed(1)} s`);
    expect(buildOutput).toMatch(/loaded configuration\s+file=\S*electron-builder\.yml/);
    expect(buildOutput).toContain('using custom unpacked Electron distribution');
    const walk = (dir: string): string[] =>
      existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)])) : [];
    expect(walk(cacheDir), 'files downloaded into the electron-builder cache').toEqual([]);
    expect(existsSync(join(unpacked, 'capture-desk')), 'executable renamed to linux.executableName').toBe(true);
  });

  it('app.asar holds the build output, package.json and the manual, and nothing else from the repository', () => {
    for (const file of ['/dist/electron/main.js', '/dist/electron/preload.cjs', '/dist/renderer/index.html', '/package.json']) {
      expect(entries, file).toContain(file);
    }
    const topLevel = new Set(entries.map((e) => '/' + (e.split('/')[1] ?? '')));
    expect([...topLevel].sort()).toEqual(['/dist', '/node_modules', '/package.json', '/resources']);
    expect(entries.filter((e) => e.startsWith('/dist/') && e.endsWith('.map'))).toEqual([]);
    // Every non-map file of the build output made it in.
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));
    const distFiles = walk(join(ROOT, 'dist'))
      .filter((f) => !f.endsWith('.map'))
      .map((f) => '/' + relative(ROOT, f).split('\\').join('/'));
    expect(entries).toEqual(expect.arrayContaining(distFiles));
  });

  it('unpacks the model worker beside app.asar, and the app starts it from there', () => {
    // Worker threads of older Electron versions could not read app.asar (electron#22446); the
    // Electron binary cannot run here, so this checks the two halves that make it work anyway.
    const worker = join(dirname(asarPath), 'app.asar.unpacked', 'dist', 'model', 'model-worker.js');
    expect(existsSync(worker), worker).toBe(true);
    const fromMain = pathToFileURL(join(asarPath, 'dist', 'electron', 'main.js')).href;
    expect(defaultModelWorkerPath(fromMain)).toBe(worker);
    const fromChunk = pathToFileURL(join(asarPath, 'dist', 'cli', 'chunks', 'x.js')).href;
    expect(defaultModelWorkerPath(fromChunk)).toBe(worker);
    // Unpacked, the worker has no node_modules beside it: it may import only Node's own modules and
    // its own chunks (the sensor decoders it loads on the first sensor sample), all unpacked with it.
    const dir = dirname(worker);
    const files = [worker, ...readdirSync(join(dir, 'chunks')).filter((f) => f.endsWith('.js')).map((f) => join(dir, 'chunks', f))];
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const specifiers = [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)].map((m) => m[1] ?? m[2] ?? m[3]!);
      for (const spec of specifiers) {
        if (spec.startsWith('.')) expect(existsSync(join(dirname(file), spec)), `${relative(dir, file)} imports ${spec}`).toBe(true);
        else expect(spec.startsWith('node:') || builtinModules.includes(spec), `${relative(dir, file)} imports the package ${spec}`).toBe(true);
      }
    }
  });

  it("app.asar holds only the CLI chunks the CLI can load, none left over from earlier builds", () => {
    // esbuild names chunks by content hash and never deletes old ones; the build empties dist/cli first.
    const packaged = entries.filter((e) => e.startsWith('/dist/cli/') && e.endsWith('.js'));
    const reached = new Set<string>();
    const visit = (entry: string) => {
      if (reached.has(entry)) return;
      reached.add(entry);
      const text = extractFile(asarPath, entry.slice(1)).toString('utf8');
      for (const m of text.matchAll(/(?:from\s*|import\s*\(?\s*)"(\.{1,2}\/[^"]+\.js)"/g)) visit(posix.join(posix.dirname(entry), m[1]!));
    };
    visit('/dist/cli/capture-desk.js');
    expect(reached.size, 'the CLI loads its commands from chunks').toBeGreaterThan(5);
    expect(packaged.filter((e) => !reached.has(e)), 'packaged CLI files nothing imports').toEqual([]);
  });

  it("the packaged package.json starts the ESM main and names the app 'Capture Desk'", () => {
    const packaged = JSON.parse(extractFile(asarPath, 'package.json').toString('utf8')) as Record<string, unknown>;
    expect(packaged.type).toBe('module');
    expect(packaged.main).toBe(pkg.main);
    expect(entries).toContain('/' + posix.normalize(String(packaged.main)));
    expect(packaged.productName).toBe('Capture Desk');
    expect(packaged.devDependencies).toBeUndefined();
  });

  it('every package the bundles import is packaged', async () => {
    const entryPoints = ['dist/electron/main.js', 'dist/electron/preload.cjs', 'dist/cli/capture-desk.js']
      .map((f) => join(ROOT, f))
      .filter((f) => existsSync(f));
    const result = await esbuild({
      entryPoints,
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outdir: join(tmpdir(), 'cd-unused-outdir'),
      logLevel: 'silent',
    });
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    const packages = new Set<string>();
    for (const input of Object.values(result.metafile.inputs)) {
      for (const imp of input.imports) {
        if (!imp.external || builtins.has(imp.path) || imp.path.startsWith('node:')) continue;
        const parts = imp.path.split('/');
        packages.add(imp.path.startsWith('@') ? `${parts[0]}/${parts[1]}` : String(parts[0]));
      }
    }
    packages.delete('electron'); // provided by the runtime
    expect(packages.size).toBeGreaterThan(0);
    for (const name of packages) {
      expect(entries, `${name} is imported by the build output but not packaged (is it in "dependencies"?)`).toContain(`/node_modules/${name}/package.json`);
    }
  });

  it("the renderer's index.html only references packaged files", () => {
    const html = extractFile(asarPath, 'dist/renderer/index.html').toString('utf8');
    const refs = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => String(m[1])).filter((u) => !/^(data:|https?:|#)/.test(u));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, 'absolute URLs break under file://').not.toMatch(/^\//);
      expect(entries, ref).toContain(posix.join('/dist/renderer', ref));
    }
  });

  it('native modules are unpacked from the asar, with only Linux binaries', () => {
    const nodeFiles = entries.filter((e) => e.endsWith('.node'));
    for (const file of nodeFiles) {
      expect((statFile(asarPath, file.slice(1)) as { unpacked?: boolean }).unpacked, `${file} must be unpacked`).toBe(true);
      expect(existsSync(join(unpacked, 'resources/app.asar.unpacked', file)), file).toBe(true);
    }
    for (const dir of ['@libsql/linux-x64-gnu', 'keytar', 'node-web-audio-api', '@serialport/bindings-cpp']) {
      expect(nodeFiles.some((f) => f.startsWith(`/node_modules/${dir}/`)), `${dir} has a native binary`).toBe(true);
    }
    expect(nodeFiles.filter((f) => /darwin|win32|android/.test(f))).toEqual([]);
    // Only the glibc build of libsql: Electron runs on glibc, the musl one would be dead weight.
    expect(nodeFiles.filter((f) => f.startsWith('/node_modules/@libsql/'))).toEqual(['/node_modules/@libsql/linux-x64-gnu/index.node']);
    expect(nodeFiles.filter((f) => f.startsWith('/node_modules/better-sqlite3/')), 'better-sqlite3 is not Node-API and must not ship').toEqual([]);
    expect(nodeFiles.filter((f) => /obj\.target|test_extension/.test(f))).toEqual([]);
  });

  it('the packaged production dependencies load from the unpacked app', async () => {
    const appDir = join(work, 'extracted-app');
    extractAll(asarPath, appDir);
    copyFileSync(join(ROOT, 'test/packaging/probe-packaged-app.mjs'), join(appDir, 'probe-packaged-app.mjs'));
    const res = await run(process.execPath, [join(appDir, 'probe-packaged-app.mjs')], { cwd: appDir, timeoutMs: 60_000 });
    expect(res.code, res.output).toBe(0);
    const report = JSON.parse(res.output.trim().split('\n').pop() ?? '{}') as {
      imports: Record<string, string>;
      sqlite: string;
      nativeFiles: string[];
    };
    expect(Object.keys(report.imports).sort()).toEqual(Object.keys(pkg.dependencies).sort());
    for (const [name, status] of Object.entries(report.imports)) expect(status, name).toBe('ok');
    expect(report.sqlite).toMatch(/^3\.\d+/);
    if (process.platform === 'linux') {
      for (const dir of ['@libsql/linux-x64-gnu', 'keytar', 'node-web-audio-api', '@serialport/bindings-cpp']) {
        expect(report.nativeFiles.some((f) => f.startsWith(join(appDir, 'node_modules', dir) + '/')), `${dir} loaded its binary from the packaged app`).toBe(true);
      }
      expect(report.nativeFiles.filter((f) => f.startsWith(ROOT + '/'))).toEqual([]);
    }
  }, 90_000);

  it('the udev rule is in the unpacked app, where the deb after-install script copies it from', () => {
    const shipped = join(unpacked, 'resources/udev', RULE_NAME);
    expect(existsSync(shipped), shipped).toBe(true);
    expect(readFileSync(shipped, 'utf8')).toBe(readFileSync(RULE_SOURCE, 'utf8'));
    expect(statSync(shipped).mode & 0o444).toBe(0o444);
    // Build resources themselves (icons, scripts, entitlements) stay out of the app; the manual is
    // the one part of resources/ inside it (next test).
    expect(entries.filter((e) => e.startsWith('/resources/') && !/^\/resources\/(manual|readme)(\/|$)/.test(e))).toEqual([]);
  });

  it('app.asar holds the manual (Help → Manual) with every page and picture of resources/manual, where the core looks for it', () => {
    const pages = readdirSync(join(ROOT, 'resources/manual')).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) {
      expect(entries, page).toContain(`/resources/manual/${page}`);
      // The same bytes: a manual packed from a stale copy would show old pages.
      expect(extractFile(asarPath, `resources/manual/${page}`).toString('utf8'), page).toBe(readFileSync(join(ROOT, 'resources/manual', page), 'utf8'));
      // Every picture a page shows is packed beside it.
      for (const m of readFileSync(join(ROOT, 'resources/manual', page), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
        expect(entries, `${page}: ${m[1]}`).toContain('/' + posix.join('resources/manual', m[1]!));
      }
    }
    // findManualDir: two folders up from the main bundle, as from the CLI's entry.
    expect(entries).toContain('/dist/electron/main.js');
    expect(entries).toContain('/dist/cli/capture-desk.js');
  });
});
