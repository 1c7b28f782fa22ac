// One offline `electron-builder --linux dir` build of the app, shared by the packaging test files.
// The Electron binary cannot be downloaded here, so the build uses a stand-in Electron directory
// (electronDist); everything else is electron-builder's real code path, with no network. A build
// takes a few seconds, so each test file makes its own (they run in parallel, in separate temp dirs).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listPackage } from '@electron/asar';
import { run, tail } from './helpers.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const REQUIRED_DIST = ['dist/electron/main.js', 'dist/electron/preload.cjs', 'dist/renderer/index.html', 'dist/cli/capture-desk.js'];

export interface LinuxDirBuild {
  /** Temp folder holding everything below; removed by dispose(). */
  work: string;
  /** electron-builder's output folder (holds linux-unpacked/). */
  outDir: string;
  cacheDir: string;
  /** release/linux-unpacked: what the .deb installs under /opt/Capture Desk. */
  unpacked: string;
  asarPath: string;
  /** Paths inside app.asar, '/'-separated, each starting with '/'. */
  entries: string[];
  output: string;
  seconds: number;
  dispose(): void;
}

export interface BuildOptions {
  /**
   * The stand-in for the Electron executable. Default: a script that fails (nothing should run it).
   * 'node': a script that runs this Node, which is what Electron is under ELECTRON_RUN_AS_NODE=1.
   */
  electron?: 'fail' | 'node';
  prefix?: string;
}

export async function buildLinuxDir(opts: BuildOptions = {}): Promise<LinuxDirBuild> {
  const missing = REQUIRED_DIST.filter((f) => !existsSync(join(ROOT, f)));
  if (missing.length > 0) {
    throw new Error(`The app's build output is missing (${missing.join(', ')}). Run \`npm run build\` before the packaging tests.`);
  }
  const work = mkdtempSync(join(tmpdir(), opts.prefix ?? 'cd-pack-'));
  const outDir = join(work, 'release');
  const cacheDir = join(work, 'electron-builder-cache');

  // Stand-in Electron distribution: what electron-builder copies and renames for Linux.
  const electronDist = join(work, 'electron-dist');
  const electronVersion = (JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')) as { version: string }).version;
  mkdirSync(electronDist, { recursive: true });
  const standIn =
    opts.electron === 'node'
      ? `#!/bin/sh\n# Stand-in for the Electron binary: Node, as Electron is under ELECTRON_RUN_AS_NODE=1.\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] || { echo "stand-in Electron: only ELECTRON_RUN_AS_NODE=1 is supported" >&2; exit 3; }\nexec '${process.execPath}' "$@"\n`
      : '#!/bin/sh\necho "stand-in for the Electron binary" >&2\nexit 1\n';
  writeFileSync(join(electronDist, 'electron'), standIn);
  chmodSync(join(electronDist, 'electron'), 0o755);
  writeFileSync(join(electronDist, 'version'), electronVersion);
  writeFileSync(join(electronDist, 'LICENSE'), 'Stand-in for Electron LICENSE\n');
  writeFileSync(join(electronDist, 'LICENSES.chromium.html'), '<!doctype html><title>stand-in</title>\n');

  // A real build: not vitest's environment (builder-util hard-links files when VITEST is set),
  // no code signing discovery, an empty download cache, and a dead proxy so any download attempt
  // fails fast instead of reaching the network.
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST') && k !== 'NODE_OPTIONS') env[k] = v;
  Object.assign(env, {
    CSC_IDENTITY_AUTO_DISCOVERY: 'false',
    ELECTRON_BUILDER_OFFLINE: 'true',
    ELECTRON_BUILDER_CACHE: cacheDir,
    NO_UPDATE_NOTIFIER: '1',
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    NO_PROXY: '',
    no_proxy: '',
  });
  const cli = join(dirname(require.resolve('electron-builder/package.json')), 'cli.js');
  const started = Date.now();
  const res = await run(
    process.execPath,
    [cli, '--linux', 'dir', '--publish', 'never', `-c.electronDist=${electronDist}`, '-c.npmRebuild=false', `-c.directories.output=${outDir}`],
    { cwd: ROOT, env, timeoutMs: 170_000 },
  );
  const seconds = (Date.now() - started) / 1000;
  writeFileSync(join(work, 'electron-builder.log'), res.output);
  const dispose = () => {
    if (!process.env.KEEP_PACKAGING_OUTPUT) rmSync(work, { recursive: true, force: true });
    else console.log(`packaging output kept in ${work}`);
  };
  if (res.code !== 0) {
    dispose();
    throw new Error(`electron-builder failed (exit ${res.code ?? res.signal}):\n${tail(res.output)}`);
  }
  const unpacked = join(outDir, 'linux-unpacked');
  const asarPath = join(unpacked, 'resources/app.asar');
  const entries = listPackage(asarPath, { isPack: false }).map((e) => e.split('\\').join('/'));
  return { work, outDir, cacheDir, unpacked, asarPath, entries, output: res.output, seconds, dispose };
}
