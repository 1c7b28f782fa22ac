// Bulk actions as the bulk bar runs them, against the real core through the renderer's own Api
// client: on ticked rows one samples.bulk and one refetch of the page; on all matching a dry run
// whose count the confirmation states, the confirm refused when the count changed meanwhile, and an
// export as a job. The sentences are checked whole: they are what the person reads.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCore, type Core } from '../../../src-main/core/app.js';
import type { BulkResult, Sample } from '../../../src-main/core/contract/contract.js';
import { createLogger } from '../../../src-main/core/log.js';
import { Db } from '../../../src-main/core/samples/sqlite.js';
import { memoryKeychain } from '../../../src-main/core/secrets/keychain.js';
import type { Api } from '../../../src-renderer/lib/api/client.js';
import * as bulk from '../../../src-renderer/lib/samples/bulk.js';
import { MatchingBulk } from '../../../src-renderer/lib/state/bulk-matching.svelte.js';
import { JobRunner } from '../../../src-renderer/lib/state/jobs.svelte.js';
import { SampleIndex } from '../../../src-renderer/lib/state/sample-index.svelte.js';
import { SamplesState } from '../../../src-renderer/lib/state/samples.svelte.js';
import { fixedPorts } from '../../support/fake-hardware.js';
import { encodeCbor, sensorDoc } from '../../support/ingestion-server/fixtures.js';
import { coreApi } from '../../support/renderer/core-api.js';

let work: string;
let dataDir: string;
let core: Core;
let api: Api;
/** Every method the renderer called, in order. */
const calls: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'cd-bulk-renderer-'));
  dataDir = join(work, 'data');
  core = await openCore();
  api = coreApi(() => core, (method) => calls.push(method));
  await api.call('settings.set', { qualityHold: 'off' });
});
afterAll(async () => {
  await core.close();
  rmSync(work, { recursive: true, force: true });
});
beforeEach(async () => {
  const { samples } = await api.call('samples.list', { limit: 5000 });
  if (samples.length) await api.call('samples.bulk', { filter: {}, action: { type: 'delete' } });
  await api.call('settings.set', { qualityHold: 'off' });
});

const openCore = () => createCore({ dataDir, shell: 'browser', uploads: false, hardware: { ports: fixedPorts([]), keychain: memoryKeychain() }, log: createLogger(() => {}) });

let seed = 0;
async function add(name: string): Promise<Sample> {
  return api.call('samples.addFile', { name, bytes: new Uint8Array(encodeCbor(sensorDoc([[++seed, 1], [seed, 2], [seed, 3]]))), category: 'training' });
}
async function addMany(prefix: string, n: number): Promise<Sample[]> {
  const out: Sample[] = [];
  for (let i = 0; i < n; i++) out.push(await add(`${prefix}.${i}.cbor`));
  return out;
}
/**
 * What an upload would have done: the samples are on the platform. Written with the core closed
 * (two connections from two SQLite builds on one WAL file do not see each other reliably).
 */
async function markUploaded(ids: string[]): Promise<void> {
  await core.close();
  const db = new Db(join(dataDir, 'samples.db'));
  try {
    db.prepare(`UPDATE samples SET state = 'uploaded' WHERE id IN (${ids.map(() => '?').join(',')})`).run(...ids);
  } finally {
    db.close();
  }
  core = await openCore();
}
const labels = async (text: string) => (await api.call('samples.query', { filter: { text }, limit: 5000 })).samples.map((s) => s.label);
/** Past the core's coalescing of samples.changed (100 ms) and the refetch it causes. */
const quiet = () => new Promise((r) => setTimeout(r, 400));

describe('bulk actions on ticked rows', () => {
  it('relabel: one samples.bulk, one refetch of the page, and the sentence says what was left alone and why', async () => {
    const rows = await addMany('wave', 3);
    await add('idle.0.cbor');
    await markUploaded([rows[2]!.id]);
    const index = new SampleIndex(api);
    const offIndex = index.subscribe();
    const samples = new SamplesState(api, index);
    const off = samples.subscribe();
    try {
      await samples.refresh();
      const ticked = samples.list.filter((s) => s.name.startsWith('wave.'));
      expect(ticked).toHaveLength(3);
      await quiet();
      calls.length = 0;

      const r = await bulk.relabel(api, ticked, 'walk');
      expect(r).toEqual({ text: '2 samples labelled "walk". 1 sample left alone: already on the platform: change their label there.', failed: false });
      await vi.waitFor(() => expect(samples.list.filter((s) => s.label === 'walk')).toHaveLength(2), { timeout: 3000, interval: 20 });
      await quiet();
      // No per-id calls and no refetch per sample: the action, then the page once.
      expect(calls).toEqual(['samples.bulk', 'samples.query']);
      expect(await labels('idle')).toEqual(['idle']);
    } finally {
      off();
      offIndex();
    }
  });

  it('queue: samples the quality setting holds back are counted as held (the "Show flagged samples" note), in the words used everywhere', async () => {
    await api.call('settings.set', { qualityHold: 'all' }); // three rows are too short: every one is held
    const rows = await addMany('tap', 2);
    const r = await bulk.enqueue(api, rows, ['local']);
    expect(r.held).toBe(2);
    expect(r.text).toMatch(/^0 samples queued for upload\. 2 held back by data-quality checks: open their badge and choose "Upload anyway"/);
    expect(r.text).not.toContain('held back by the data-quality setting'); // said once, not twice
  });

  it('category: local samples in one samples.bulk; uploaded ones are moved on the platform one by one (here: split, which the platform only does while uploading)', async () => {
    const rows = await addMany('knock', 3);
    await markUploaded([rows[0]!.id]);
    const fresh = (await api.call('samples.list', { ids: rows.map((s) => s.id), limit: 3 })).samples;
    calls.length = 0;
    const r = await bulk.setCategory(api, fresh, 'split');
    expect(calls).toEqual(['samples.bulk']);
    expect(r.text).toBe('2 samples set to split. 1 uploaded sample left alone: the platform splits only while uploading.');
    const after = (await api.call('samples.list', { ids: rows.map((s) => s.id), limit: 3 })).samples;
    expect(after.filter((s) => s.category === 'split').map((s) => s.id).sort()).toEqual([rows[1]!.id, rows[2]!.id].sort());
  });

  it('delete and dequeue: one call each, and nothing sent when nothing applies', async () => {
    const rows = await addMany('hum', 2);
    calls.length = 0;
    expect(await bulk.dequeue(api, rows)).toEqual({ text: 'None of the selected samples is waiting in the queue.', failed: false });
    expect(calls).toEqual([]);
    expect(await bulk.remove(api, rows)).toEqual({ text: '2 samples deleted.', failed: false });
    expect(calls).toEqual(['samples.bulk']);
    expect(await labels('hum')).toEqual([]);
  });
});

describe('bulk actions on all matching samples', () => {
  it('the dry run states the count; a sample added before the confirm makes the core refuse, nothing changes; after looking again it runs', async () => {
    const waves = await addMany('wave', 6);
    await addMany('idle', 2);
    await markUploaded([waves[0]!.id]);
    const m = new MatchingBulk(api, new JobRunner(api, 'export'));
    await m.ask({ type: 'label', label: 'gesture' }, { text: 'wave' });
    expect(m.pending?.preview).toMatchObject({ matched: 6, changed: 5 });
    expect(m.pending?.text).toBe('Set label "gesture" on 5 samples? 1 stays as it is: already on the platform: change their label there.');

    await add('wave.extra.cbor');
    expect(await m.confirm()).toBeNull();
    expect(m.stale).toBe('The filter now matches 7 samples, not the 6 you confirmed (samples were added, changed or deleted meanwhile). Nothing was changed: look at the list again and confirm.');
    expect(m.pending).not.toBeNull(); // the confirmation stays, with "Look again"
    expect((await labels('wave')).filter((l) => l === 'gesture')).toEqual([]);

    await m.lookAgain();
    expect(m.stale).toBeNull();
    expect(m.pending?.text).toBe('Set label "gesture" on 6 samples? 1 stays as it is: already on the platform: change their label there.');
    const r = await m.confirm();
    expect(r?.text).toBe('6 samples labelled "gesture". 1 sample left alone: already on the platform: change their label there.');
    expect(m.pending).toBeNull();
    expect((await labels('wave')).sort()).toEqual(['gesture', 'gesture', 'gesture', 'gesture', 'gesture', 'gesture', 'wave']);
    expect(await labels('idle')).toEqual(['idle', 'idle']);
  });

  it('"all matching" holds while samples come and go elsewhere (a capture running), and ends with a tick or a new find', async () => {
    await addMany('wave', 3);
    const index = new SampleIndex(api);
    const offIndex = index.subscribe();
    const samples = new SamplesState(api, index);
    const off = samples.subscribe();
    try {
      samples.restore('q=wave');
      await samples.refresh();
      samples.selectAllMatching();
      expect(samples.allMatching).toBe(true);
      await add('wave.new.cbor');
      await vi.waitFor(() => expect(samples.total).toBe(4), { timeout: 3000, interval: 20 });
      expect(samples.allMatching).toBe(true);
      expect(samples.selected).toHaveLength(4); // the new row is ticked too: the find chose it

      samples.selection.click(samples.list[0]!.id, samples.list.map((s) => s.id), false);
      expect(samples.allMatching).toBe(false);
      samples.selectAllMatching();
      samples.setText('idle');
      expect(samples.allMatching).toBe(false);
    } finally {
      off();
      offIndex();
    }
  });

  it('queue on all matching: the quality hold is counted apart (heldIn), and "Upload anyway" counts again with force and queues them', async () => {
    await api.call('settings.set', { qualityHold: 'all' }); // the rows are too short: every one is held
    try {
      await addMany('hiss', 3);
      const m = new MatchingBulk(api, new JobRunner(api, 'export'));
      await m.ask({ type: 'queue' }, { text: 'hiss' });
      expect(m.pending?.preview.changed).toBe(0);
      expect(bulk.heldIn(m.pending!.preview)).toBe(3);
      expect(m.pending?.preview.unchanged).toEqual([{ count: 3, code: 'held-back', reason: expect.stringMatching(/^held back by the data-quality setting/) }]);
      await m.ask({ type: 'queue', force: true }, { text: 'hiss' });
      expect(m.pending?.text).toBe('Queue 3 samples for upload, held back ones too ("Upload anyway")?');
      const r = await m.confirm();
      expect(r?.text).toBe('3 samples queued for upload.');
      const { samples } = await api.call('samples.query', { filter: { text: 'hiss' } });
      expect(samples.map((x) => x.state)).toEqual(['queued', 'queued', 'queued']);
    } finally {
      await api.call('settings.set', { qualityHold: 'off' });
    }
  });

  it('nothing to change: the confirmation says so and why, and has nothing to confirm', async () => {
    const rows = await addMany('drone', 2);
    const m = new MatchingBulk(api, new JobRunner(api, 'export'));
    await m.ask({ type: 'dequeue' }, { text: 'drone' });
    expect(m.pending?.text).toBe('None of the 2 samples would change. 2 stay as they are: not waiting in the upload queue.');
    expect(rows).toHaveLength(2);
  });

  it('export runs as a job with progress and writes one file per matching sample', async () => {
    await addMany('beep', 4);
    await add('idle.9.cbor');
    const job = new JobRunner(api, 'export');
    const progress: number[] = [];
    const off = api.on('samples.progress', (p) => progress.push(p.done));
    const m = new MatchingBulk(api, job);
    const outDir = join(work, 'out');
    await m.ask({ type: 'export', outDir, csv: false }, { text: 'beep' });
    expect(m.pending?.text).toBe(`Export 4 samples to ${outDir}?`);
    const r = await m.confirm();
    off();
    expect(r?.text).toBe(`Exported 4 files with info.labels to ${outDir}.`);
    expect(readdirSync(outDir, { recursive: true }).filter((f) => String(f).endsWith('.cbor'))).toHaveLength(4);
    expect(progress.at(-1)).toBe(4);
    expect(job.running).toBe(false);
  });

  it('an export cancelled from its job bar says so and leaves no files', async () => {
    await addMany('chirp', 40);
    const job = new JobRunner(api, 'export');
    const m = new MatchingBulk(api, job);
    const outDir = join(work, 'cancelled');
    await m.ask({ type: 'export', outDir, csv: true }, { text: 'chirp' });
    const done = m.confirm();
    job.cancel(); // Cancel in the job bar, as soon as it shows
    expect((await done)?.text).toBe('Export cancelled; the files it had written were removed.');
    expect(job.running).toBe(false);
    let left: unknown[] = [];
    try {
      left = readdirSync(outDir, { recursive: true }).filter((f) => String(f).endsWith('.csv'));
    } catch {
      // no folder at all: nothing left either
    }
    expect(left).toEqual([]);
  });
});

describe('the words', () => {
  const result = (o: Partial<BulkResult>): BulkResult => ({ matched: 0, changed: 0, unchanged: [], export: null, ...o });

  it('counts read with separators, and several reasons are listed with their counts', () => {
    const r = result({ matched: 12_345, changed: 12_000, unchanged: [{ count: 300, reason: 'already on the platform: move them there', code: 'on-platform' }, { count: 45, reason: 'being uploaded right now: try again once it is done', code: 'uploading' }] });
    expect(bulk.confirmText({ type: 'category', category: 'testing' }, r)).toBe(
      'Set category testing on 12,000 samples? 345 stay as they are: 300 already on the platform: move them there; 45 being uploaded right now: try again once it is done.',
    );
    expect(bulk.confirmText({ type: 'delete' }, result({ matched: 1, changed: 1 }))).toMatch(/^Delete 1 sample\? Files captured here are removed/);
    expect(bulk.doneText({ type: 'label', label: null }, result({ matched: 2, changed: 2 })).text).toBe('2 samples unlabeled.');
  });

  it('samples neither changed nor given a reason were changed by someone else meanwhile: said, not hidden', () => {
    expect(bulk.doneText({ type: 'dequeue' }, result({ matched: 3, changed: 2 })).text).toBe('2 samples taken out of the queue. 1 sample left alone: changed while this ran.');
  });

  it('only the core\'s count-changed refusal is "stale"', () => {
    expect(bulk.isStaleCount(Object.assign(new Error('The filter now matches 7 samples, not the 6 you confirmed'), { code: 'InvalidArguments' }))).toBe(true);
    expect(bulk.isStaleCount(Object.assign(new Error('outDir is not writable'), { code: 'InvalidArguments' }))).toBe(false);
    expect(bulk.isStaleCount(Object.assign(new Error('you confirmed'), { code: 'Busy' }))).toBe(false);
  });
});
