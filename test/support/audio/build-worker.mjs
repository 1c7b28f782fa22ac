// Bundles the audio capture worker from the TypeScript sources for tests and benchmarks that run
// without dist/ (vitest runs the sources; the worker must be a JavaScript file to fork). The
// bundle goes under node_modules/.cache so `node-web-audio-api` resolves from it like from dist/.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'capture-desk-audio');

/** Bundles `entry` (a path under the repository) once per content; returns the .mjs path. */
export async function bundleForNode(entry) {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    write: false,
    logLevel: 'warning',
    define: { __APP_VERSION__: '"test"' },
  });
  const code = result.outputFiles[0].contents;
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 16);
  const name = entry.replace(/^.*\//, '').replace(/\.[cm]?ts$/, '');
  const out = join(CACHE, `${name}.${hash}.mjs`);
  if (existsSync(out)) return out;
  await mkdir(CACHE, { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  await writeFile(tmp, code);
  await rename(tmp, out); // atomic: parallel test files never read half a bundle
  return out;
}

export function buildCaptureWorker() {
  return bundleForNode('src-main/core/audio/capture-worker.ts');
}
