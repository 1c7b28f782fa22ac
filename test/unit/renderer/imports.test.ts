// The Samples view's "Add files" (Imports) on a drop of hundreds of files in the Electron window:
// the files with a path go to the real core a few hundred per samples.addPaths, not one call each;
// every row ends added, found or refused with the core's reason; a cancel stops what has not been sent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src-main/core/app.js';
import { createLogger } from '../../../src-main/core/log.js';
import { memoryKeychain } from '../../../src-main/core/secrets/keychain.js';
import type { Api } from '../../../src-renderer/lib/api/client.js';
import { Imports } from '../../../src-renderer/lib/state/imports.svelte.js';
import { SampleIndex } from '../../../src-renderer/lib/state/sample-index.svelte.js';
import { fixedPorts } from '../../support/fake-hardware.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { coreApi } from '../../support/renderer/core-api.js';

let work: string;
let core: Core;
let api: Api;
/** addPaths calls and how many paths each carried; other methods by name. */
const calls: string[] = [];
let onAddPaths: (() => void) | null = null;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cd-imports-'));
  mkdirSync(join(work, 'files'));
  core = await createCore({ dataDir: join(work, 'data'), shell: 'electron', uploads: false, hardware: { ports: fixedPorts([]), keychain: memoryKeychain() }, log: createLogger(() => {}) });
  api = coreApi(() => core, (method, input) => {
    if (method === 'samples.addPaths') {
      calls.push(`addPaths ×${(input as { paths: string[] }).paths.length}`);
      onAddPaths?.();
    } else if (method === 'samples.addFile') calls.push('addFile');
  });
  await api.call('settings.set', { qualityHold: 'off' });
});
afterAll(async () => {
  await core.close();
  rmSync(work, { recursive: true, force: true });
});

let seed = 0;
/** `n` sensor files on disk and the Files a drop gives for them, with the window's pathForFile. */
function drop(prefix: string, n: number): { files: File[]; paths: Map<File, string> } {
  const paths = new Map<File, string>();
  const files = Array.from({ length: n }, (_, i) => {
    const name = `${prefix}.${i}.cbor`;
    const path = join(work, 'files', name);
    const bytes = encodeCbor(sensorDoc([[++seed, 1], [seed, 2]]));
    writeFileSync(path, bytes);
    const file = new File([bytes], name);
    paths.set(file, path);
    return file;
  });
  return { files, paths };
}

describe('Add files in the Electron window', () => {
  it('sends a drop of 600 files in calls of at most 256, and each row says what became of its file', async () => {
    const { files, paths } = drop('wave', 600);
    const broken = new File(['x'], 'notes.txt');
    paths.set(broken, join(work, 'files', 'notes.txt'));
    writeFileSync(paths.get(broken)!, 'x');
    const pasted = new File([encodeCbor(sensorDoc([[0.5, 1], [0.5, 2]]))], 'idle.pasted.cbor'); // no path: sent by its bytes
    const dropped = [...files.slice(0, 300), broken, files[0]!, pasted, ...files.slice(300)];
    const imports = new Imports(api, new SampleIndex(api), (f) => paths.get(f) ?? '');
    calls.length = 0;
    await imports.add(dropped);
    expect(calls).toEqual(['addPaths ×256', 'addPaths ×46', 'addFile', 'addPaths ×256', 'addPaths ×44']);
    const by = (status: string) => imports.items.filter((i) => i.status === status);
    expect(by('added').length).toBe(602);
    expect(imports.items.filter((i) => i.known).map((i) => i.name)).toEqual(['wave.0.cbor']); // dropped twice: found the second time
    expect(by('refused').map((i) => [i.name, i.message])).toEqual([['notes.txt', expect.stringContaining('the platform does not accept .txt')]]);
    expect(imports.items.map((i) => i.name)).toEqual(dropped.map((f) => f.name));
    expect(imports.items.filter((i) => i.status === 'added').every((i) => i.sample?.label === i.name.split('.')[0])).toBe(true);
    imports.dispose();
  });

  it('refuses a fixed label over 128 characters once, before any file is sent, saying its length and the limit', async () => {
    const { files, paths } = drop('long', 3);
    const imports = new Imports(api, new SampleIndex(api), (f) => paths.get(f) ?? '');
    imports.labelMode = 'fixed';
    imports.fixedLabel = 'x'.repeat(200);
    calls.length = 0;
    await imports.add(files);
    expect(calls).toEqual([]);
    expect(imports.items).toEqual([]);
    expect(imports.formError).toBe('The label is 200 characters long; a label is at most 128. Shorten it.');
    imports.dispose();
  });

  it('stops at a cancel: the call in flight finishes, nothing after it is sent', async () => {
    const { files, paths } = drop('tap', 600);
    const imports = new Imports(api, new SampleIndex(api), (f) => paths.get(f) ?? '');
    calls.length = 0;
    onAddPaths = () => imports.cancel();
    try {
      await imports.add(files);
    } finally {
      onAddPaths = null;
    }
    expect(calls).toEqual(['addPaths ×256']);
    expect(imports.items.filter((i) => i.status === 'added').length).toBe(256);
    expect(imports.items.filter((i) => i.status === 'cancelled').length).toBe(344);
    imports.dispose();
  });
});
