// An export asked for in the app with a folder that is not a full path ("myexport") is refused,
// saying the full path it may have meant, for the ticked rows, for all matching (before its
// question is asked) and for samples.export: it landed in the folder `serve` or the app was
// started in, and the notice said only "Exported 3 files … to myexport.". A full path exports there.
// A folder the system will not make says so and what to do: not "Internal error: ENOENT … mkdir
// '/proc/x'", nor "choose another data folder" (the data folder is fine; the export's is not).
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BulkResult, Sample } from '../../src-main/core/contract/contract.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';

const cleanups = useCleanups();

async function world() {
  const h = await startCore(cleanups, { serial: null, uploads: false, settings: { qualityHold: 'off' } });
  const dir = await mkdtemp(join(tmpdir(), 'cd-export-folder-'));
  await writeFile(join(dir, 'idle.1.cbor'), encodeCbor(sensorDoc(Array.from({ length: 60 }, (_, r) => [r, 1, 2]), 10)));
  const { results } = await h.call<{ results: Array<{ sample?: Sample }> }>('samples.addPaths', { paths: [join(dir, 'idle.1.cbor')], category: 'training' });
  return { ...h, dir, ids: results.map((r) => r.sample!.id) };
}

describe('the export folder asked for in the app', () => {
  it('refuses a relative folder, naming the full path it may have meant, and writes nothing', async () => {
    const w = await world();
    const meant = join(w.dataDir, 'exports', 'myexport');
    const said = new RegExp(`Cannot export into "myexport": type the folder's full path, such as ${meant.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
    const bulk = (dryRun: boolean) => w.call('samples.bulk', { filter: { ids: w.ids }, action: { type: 'export', jobId: `j-${dryRun}`, outDir: 'myexport' }, dryRun });
    await expect(bulk(true)).rejects.toThrow(said); // the all-matching question is never asked
    await expect(bulk(false)).rejects.toMatchObject({ code: 'InvalidArguments', message: expect.stringMatching(said) });
    await expect(w.call('samples.export', { jobId: 'j-one', ids: w.ids, outDir: 'myexport' })).rejects.toThrow(said);
    await expect(readdir(join(process.cwd(), 'myexport'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('exports into a full path, and says that path', async () => {
    const w = await world();
    const out = join(w.dir, 'out');
    const r = await w.call<BulkResult>('samples.bulk', { filter: { ids: w.ids }, action: { type: 'export', jobId: 'j-full', outDir: out } });
    expect(r.export).toEqual({ files: 1, dir: out });
    expect(await readdir(join(out, 'training'))).toEqual(['idle.1.cbor']);
  });
});

describe.skipIf(process.platform !== 'linux')('an export folder the system will not make', () => {
  it('says what the system said, in words, and to choose another folder to export into', async () => {
    const w = await world();
    const exportTo = (outDir: string) => w.call('samples.export', { jobId: `j-${outDir}`, ids: w.ids, outDir });
    await expect(exportTo('/proc/cd-export-here')).rejects.toMatchObject({
      code: 'InvalidArguments',
      message: 'Cannot export into /proc/cd-export-here: the system allows no folder to be made there (ENOENT). Choose a folder to export into (it is made if missing); nothing was written.',
    });
    // Refused with EPERM as root, EACCES otherwise: permission denied either way.
    await expect(exportTo('/sys/cd-export-here')).rejects.toMatchObject({
      code: 'PermissionDenied',
      message: expect.stringMatching(/^Could not write to \/sys\/cd-export-here: permission denied \((EPERM|EACCES)\)\. Make the folder writable, or choose another folder to export into\.$/),
    });
  });
});
