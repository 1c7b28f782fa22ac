/**
 * The user manual: the markdown pages in resources/manual, read from the folder the shell found
 * (findManualDir) and handed to the UI over the contract, so the desktop window and the browser
 * shell show the same pages offline. The UI renders the markdown; the core only reads files.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ManualEntry } from '../contract/contract.js';
import type { Handlers } from '../dispatch.js';
import { CoreError } from '../errors.js';

const IMAGE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };
/** A screenshot is a few hundred kB; anything far bigger is not one of ours. */
const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
const INDEX = 'index';

/**
 * resources/manual seen from a bundled module: dist/electron/main.js and dist/cli/capture-desk.js
 * are two folders below the app's root, the CLI's chunks three. The same holds inside app.asar,
 * which electron-builder.yml packs the manual into. Null when it is not there (a build without it).
 */
export function findManualDir(moduleUrl: string): string | null {
  for (const rel of ['../../resources/manual/', '../../../resources/manual/']) {
    const dir = fileURLToPath(new URL(rel, moduleUrl));
    if (existsSync(join(dir, `${INDEX}.md`))) return dir;
  }
  return null;
}

export function manualHandlers(dir: string | null): Pick<Handlers, 'manual.index' | 'manual.page'> {
  const folder = () => {
    if (dir === null) throw new CoreError('Unavailable', 'The manual is not installed with this copy of Capture Desk. Its pages are in resources/manual/ of the source (and on the project page); reinstalling the app brings them back.');
    return dir;
  };
  return {
    'manual.index': async () => {
      const d = folder();
      const names = (await readdir(d)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).filter((n) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(n));
      const linked = linkedPages(await readPage(d, INDEX));
      // The index page says the order a reader meets them in; pages it forgets still show, last.
      const order = [INDEX, ...linked.filter((n) => names.includes(n)), ...names.filter((n) => n !== INDEX && !linked.includes(n)).sort()];
      const pages: ManualEntry[] = await Promise.all([...new Set(order)].map(async (name) => ({ name, title: titleOf(await readPage(d, name), name) })));
      return { pages };
    },
    'manual.page': async ({ name }) => {
      const d = folder();
      const markdown = await readPage(d, name);
      return { name, title: titleOf(markdown, name), markdown, images: await imagesOf(d, markdown) };
    },
  };
}

async function readPage(dir: string, name: string): Promise<string> {
  try {
    return await readFile(join(dir, `${name}.md`), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new CoreError('NotFound', `The manual has no page "${name}". Its index lists every page.`);
    throw err;
  }
}

/** The first level-one heading, else the file's name. */
export function titleOf(markdown: string, name: string): string {
  return /^# +(.+?)\s*$/m.exec(markdown)?.[1] ?? name;
}

/** Pages the index links to, in its order (`[Title](page.md)` or `(page.md#heading)`). */
function linkedPages(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([a-z0-9-]+)\.md(?:#[^)]*)?\)/g)].map((m) => m[1]!);
}

/**
 * The page's pictures (`![alt](../readme/x.png)`), only from the resources folder the manual sits
 * in and only pictures: a page can never make the core read anything else. A missing one is left
 * out; the page then shows its alt text.
 */
async function imagesOf(dir: string, markdown: string): Promise<Record<string, string>> {
  const root = resolve(dir, '..');
  const images: Record<string, string> = {};
  for (const m of markdown.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
    const src = m[1]!;
    const path = resolve(dir, src);
    const inside = relative(root, path);
    const type = IMAGE_TYPES[extname(path).toLowerCase()];
    if (images[src] || !type || /^[a-z]+:/i.test(src) || inside.startsWith('..') || isAbsolute(inside)) continue;
    const bytes = await readFile(path).catch(() => null);
    if (bytes && bytes.length <= MAX_IMAGE_BYTES) images[src] = `data:${type};base64,${bytes.toString('base64')}`;
  }
  return images;
}
