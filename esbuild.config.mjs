// Bundles the Node-side entry points. Dependencies stay external (native modules, and
// electron-builder ships node_modules anyway); our own code becomes one file per entry. zod is
// the exception, bundled like our own code: loaded from node_modules it brings every one of its
// ~100 files and 40 locales at each start (~150 ms of every CLI command); bundled, only what the
// contract uses. It is a devDependency for that reason (packaging.test.ts holds the two lists equal).
import { build } from 'esbuild';
import { chmodSync, readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Every package stays external as before (electron among them) but zod.
  external: [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies).filter((name) => name !== 'zod')],
  sourcemap: 'linked',
  logLevel: 'warning',
  define: { __APP_VERSION__: JSON.stringify(pkg.version) },
};

// Chunk names carry a content hash and esbuild never deletes old ones: without this, every build
// left its chunks in dist/cli, and the installers (which pack dist/**) shipped all of them.
rmSync(new URL('./dist/cli', import.meta.url), { recursive: true, force: true });
rmSync(new URL('./dist/model', import.meta.url), { recursive: true, force: true });

await Promise.all([
  build({ ...common, entryPoints: ['src-main/electron/main.ts'], format: 'esm', outfile: 'dist/electron/main.js' }),
  // Sandboxed preloads cannot be ES modules and may only require('electron').
  build({ ...common, entryPoints: ['src-main/electron/preload.ts'], format: 'cjs', outfile: 'dist/electron/preload.cjs' }),
  // Microphone capture runs in its own process (a native abort there cannot take the app down).
  build({ ...common, entryPoints: ['src-main/core/audio/capture-worker.ts'], format: 'esm', outfile: 'dist/audio/capture-worker.js' }),
  // The project's exported model runs in a worker thread of its own (model/model-runner.ts).
  // Everything it imports is bundled: it reads and decodes samples itself (cbor-x), and in an
  // install it runs from app.asar.unpacked, where no node_modules lie beside it. Split, so that
  // the sensor decoders (cbor-x, zod: +100 ms a worker's start) load only when a sensor sample comes.
  // cbor-x's optional native string extractor stays out: cbor-x tries it and decodes in JavaScript
  // without it, as it must here (a native module cannot be bundled).
  build({
    ...common,
    external: ['cbor-extract'],
    entryPoints: { 'model-worker': 'src-main/core/model/model-worker.ts' },
    format: 'esm',
    splitting: true,
    outdir: 'dist/model',
    chunkNames: 'chunks/[name]-[hash]',
  }),
  // Split so each command loads only its own code and native modules (an `upload` script should
  // not pay for serialport or the HTTP server).
  build({
    ...common,
    entryPoints: { 'capture-desk': 'src-main/cli/main.ts' },
    format: 'esm',
    splitting: true,
    outdir: 'dist/cli',
    chunkNames: 'chunks/[name]-[hash]',
    banner: { js: '#!/usr/bin/env node' },
  }),
]);

// The command is run as a program (package.json "bin", `npx capture-desk`): npx makes it
// executable only when it first links the checkout, and a rebuild writes a new file without the
// bit, so every `npx capture-desk` after `npm run serve` or `npm start` said "Permission denied".
chmodSync(new URL('./dist/cli/capture-desk.js', import.meta.url), 0o755);
