// The core's manual handlers (src-main/core/handlers/manual.ts) through the contract's dispatch, so
// the schema's checks on a page name are part of what is tested.
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDispatch, type Handlers } from '../../../src-main/core/dispatch.js';
import { findManualDir, manualHandlers } from '../../../src-main/core/handlers/manual.js';
import { createLogger } from '../../../src-main/core/log.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const REPO_MANUAL = fileURLToPath(new URL('../../../resources/manual/', import.meta.url));

function dispatchFor(dir: string | null) {
  const lines: string[] = [];
  return createDispatch(manualHandlers(dir) as Handlers, createLogger((l) => lines.push(l)));
}

/** resources/{manual,readme} in a temp folder, and a secret beside resources/ that no page may reach. */
async function world() {
  const root = await mkdtemp(join(tmpdir(), 'cd-manual-'));
  const dir = join(root, 'resources', 'manual');
  await mkdir(dir, { recursive: true });
  await mkdir(join(root, 'resources', 'readme'));
  await writeFile(join(root, 'resources', 'readme', 'shot.png'), PNG);
  await writeFile(join(root, 'secret.png'), PNG);
  await writeFile(join(root, 'resources', 'readme', 'notes.txt'), 'not a picture');
  await writeFile(join(dir, 'index.md'), '# The manual\n\n- [Zeta](zeta.md)\n- [Alpha](alpha.md#a-heading)\n- [Gone](gone.md)\n');
  await writeFile(join(dir, 'alpha.md'), 'Intro before the title.\n\n# Alpha page\n\n## A heading\n');
  await writeFile(join(dir, 'zeta.md'), '# Zeta\n\n![shot](../readme/shot.png) ![again](../readme/shot.png)\n![out](../../secret.png) ![abs](/etc/passwd.png) ![txt](../readme/notes.txt) ![net](https://example.com/x.png) ![none](../readme/missing.png)\n');
  await writeFile(join(dir, 'untitled.md'), 'no heading here\n');
  await writeFile(join(dir, 'Not_A_Page.md'), '# skipped: not a page name\n');
  return { root, dir };
}

describe('manual.index', () => {
  it('lists the index first, then the pages in the order the index links them, then the rest; titles from each first heading', async () => {
    const { dir } = await world();
    const r = await dispatchFor(dir)('manual.index', {});
    expect(r).toEqual({
      ok: true,
      value: {
        pages: [
          { name: 'index', title: 'The manual' },
          { name: 'zeta', title: 'Zeta' },
          { name: 'alpha', title: 'Alpha page' },
          { name: 'untitled', title: 'untitled' },
        ],
      },
    });
  });

  it('says plainly when this copy has no manual', async () => {
    const r = await dispatchFor(null)('manual.index', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'Unavailable', message: expect.stringContaining('The manual is not installed') } });
  });
});

describe('manual.page', () => {
  it('returns the markdown as written, its title, and each picture from resources/ once, as a data: URL', async () => {
    const { dir } = await world();
    const r = await dispatchFor(dir)('manual.page', { name: 'zeta' });
    expect(r.ok).toBe(true);
    const page = (r as { value: { name: string; title: string; markdown: string; images: Record<string, string> } }).value;
    expect(page.name).toBe('zeta');
    expect(page.title).toBe('Zeta');
    expect(page.markdown).toContain('![shot](../readme/shot.png)');
    // Outside resources/, not a picture, on the network or missing: left out (the page shows the alt text).
    expect(page.images).toEqual({ '../readme/shot.png': `data:image/png;base64,${PNG.toString('base64')}` });
  });

  it('refuses a name that could leave the folder before reading anything, and says which page is missing', async () => {
    const { dir } = await world();
    const dispatch = dispatchFor(dir);
    for (const name of ['../secret', 'a/b', '..', 'Not_A_Page', '', 'x.md']) {
      expect(await dispatch('manual.page', { name }), name).toMatchObject({ ok: false, error: { code: 'InvalidArguments' } });
    }
    expect(await dispatch('manual.page', { name: 'gone' })).toMatchObject({ ok: false, error: { code: 'NotFound', message: 'The manual has no page "gone". Its index lists every page.' } });
  });
});

describe("the repository's manual", () => {
  it('is found from where the bundles run (dist/electron, dist/cli and its chunks), and not from elsewhere', () => {
    const root = pathToFileURL(join(REPO_MANUAL, '..', '..') + '/');
    for (const bundle of ['dist/electron/main.js', 'dist/cli/capture-desk.js', 'dist/cli/chunks/serve-X.js']) {
      expect(findManualDir(new URL(bundle, root).href), bundle).toBe(REPO_MANUAL);
    }
    expect(findManualDir(pathToFileURL(join(tmpdir(), 'a', 'b', 'c.js')).href)).toBeNull();
  });

  it('has every page in its index, each with a title, and every picture a page shows', async () => {
    const files = (await readdir(REPO_MANUAL)).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    const dispatch = dispatchFor(REPO_MANUAL);
    const index = (await dispatch('manual.index', {})) as { ok: true; value: { pages: Array<{ name: string; title: string }> } };
    expect(index.value.pages.map((p) => p.name).sort()).toEqual(files.sort());
    for (const { name } of index.value.pages) {
      const r = (await dispatch('manual.page', { name })) as { ok: true; value: { title: string; markdown: string; images: Record<string, string> } };
      expect(r.ok, name).toBe(true);
      expect(r.value.title, name).not.toBe(name); // a real "# Title"
      const shown = [...r.value.markdown.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
      expect(Object.keys(r.value.images).sort(), name).toEqual([...new Set(shown)].sort());
    }
  });
});
