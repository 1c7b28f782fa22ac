// How the renderer adds a dropped file: by path in the Electron window (no 32 MB cap), by bytes in
// the browser shell (32 MB cap). The real core answers, through the renderer's own Api client.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../src-main/core/app.js';
import { createLogger } from '../../../src-main/core/log.js';
import { memoryKeychain } from '../../../src-main/core/secrets/keychain.js';
import type { Api } from '../../../src-renderer/lib/api/client.js';
import { addByPaths, addOneFile, MAX_DROP_BYTES } from '../../../src-renderer/lib/samples/add-one-file.js';
import { fixedPorts } from '../../support/fake-hardware.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { coreApi } from '../../support/renderer/core-api.js';

const MB = 1024 * 1024;
let work: string;
let core: Core;
let api: Api;
const calls: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cd-add-one-'));
  core = await createCore({ dataDir: join(work, 'data'), shell: 'electron', uploads: false, hardware: { ports: fixedPorts([]), keychain: memoryKeychain() }, log: createLogger(() => {}) });
  api = coreApi(() => core, (method) => calls.push(method));
  await api.call('settings.set', { qualityHold: 'off' });
});
afterAll(async () => {
  await core.close();
  rmSync(work, { recursive: true, force: true });
});

/** A 40 MB file on disk (sparse) and the File a drop would give for it. */
function bigFile() {
  const path = join(work, `walk.${calls.length}.mp4`);
  writeFileSync(path, '');
  truncateSync(path, 40 * MB);
  return { path, file: new File([new Uint8Array(40 * MB)], 'walk.mp4') };
}

describe('adding a dropped file', () => {
  it('in the Electron window, adds a file over 32 MB by its path', async () => {
    const { path } = bigFile();
    calls.length = 0;
    const [outcome] = await addByPaths(api, [path], { category: 'testing', queue: false });
    expect(outcome).toMatchObject({ status: 'added', known: false, sample: { label: 'walk', category: 'testing', state: 'local', file: path } });
    expect(calls).toEqual(['samples.addPaths']);
    const [again] = await addByPaths(api, [path], { category: 'testing', queue: false });
    expect(again).toMatchObject({ status: 'added', known: true, sample: { label: 'walk', category: 'testing' } });
  });

  it('in the browser shell, refuses the same file before reading it, naming the way around', async () => {
    const { file } = bigFile();
    calls.length = 0;
    const outcome = await addOneFile(api, file, { category: 'training', queue: true });
    expect(outcome.status).toBe('refused');
    expect(outcome.status === 'refused' && outcome.message).toBe('Larger than 32 MB, the limit for files added in the browser; use the desktop app or `capture-desk upload` for big files.');
    expect(calls).toEqual([]);
    expect(file.size).toBeGreaterThan(MAX_DROP_BYTES);
  });

  it('sends the bytes of a file that has no path (pasted, or from another app), and labels it', async () => {
    const file = new File([encodeCbor(sensorDoc())], 'idle.3.cbor');
    calls.length = 0;
    const outcome = await addOneFile(api, file, { category: 'training', queue: true, label: 'rest' });
    expect(outcome).toMatchObject({ status: 'added', known: false, sample: { label: 'rest', category: 'training', state: 'queued' } });
    expect(calls).toEqual(['samples.addFile']);
  });

  it('shows the core\'s reason when it refuses a path', async () => {
    const path = join(work, 'notes.txt');
    writeFileSync(path, 'x');
    const [outcome] = await addByPaths(api, [path], { category: 'training', queue: false });
    expect(outcome).toEqual({ status: 'refused', message: expect.stringContaining('the platform does not accept .txt') });
  });
});
