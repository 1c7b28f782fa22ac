// The test support a benchmark drives (the ingestion and remote-management emulators, PTY pairs) is
// TypeScript, and a benchmark runs as plain Node: it is bundled first into ESM in a temporary folder.
// Packages stay external but are pinned to absolute URLs, so the bundle resolves this project's
// node_modules from anywhere.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const pinPackages = {
  name: 'pin-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('node:') ? { path: args.path, external: true } : { path: import.meta.resolve(args.path), external: true }));
  },
};

/**
 * Bundles `entries` ({ name: path of a .ts file }) into `<tmp>/<prefix>XXXXXX/<name>.mjs`.
 * Returns the folder, each bundle's path, and a loader that imports one.
 */
export async function bundleTs(entries, prefix) {
  const { build } = await import('esbuild');
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await build({
    entryPoints: entries,
    outdir: dir, outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm', target: 'node20',
    plugins: [pinPackages], logLevel: 'warning',
  });
  const path = (name) => join(dir, `${name}.mjs`);
  return { dir, path, load: (name) => import(pathToFileURL(path(name)).href) };
}
