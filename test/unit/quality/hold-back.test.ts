import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../../src-main/core/contract/contract.js';
import { createLogger } from '../../../src-main/core/log.js';
import { encodeAcquisition } from '../../../src-main/core/samples/formats/acquisition.js';
import { holds, qualityGate } from '../../../src-main/core/samples/quality/policy.js';
import type { NewSample } from '../../../src-main/core/samples/new-sample.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { Db } from '../../../src-main/core/samples/sqlite.js';
import { UploadQueue } from '../../../src-main/core/upload/upload-queue.js';

const log = createLogger(() => {});
const stores: SampleStore[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

const sensor = (n: number, f: (i: number) => number[]) =>
  encodeAcquisition({ payload: { device_type: 'T', interval_ms: 10, sensors: [{ name: 'a', units: '' }, { name: 'b', units: '' }], values: Array.from({ length: n }, (_, i) => f(i)) } }, { format: 'cbor' });
const CLEAN = sensor(100, (i) => [Math.sin(i), Math.cos(i)]);
const ONE_FLAT = sensor(100, (i) => [Math.sin(i), 0]); // warning
const DEAD = sensor(100, () => [0, 0]); // error
const input = (name: string, queue = true): NewSample => ({ name, kind: 'sensor', label: 'l', category: 'training', queue });

async function open(policy: Pick<Settings, 'qualityHold' | 'qualityMinLengthMs'>) {
  const dir = await mkdtemp(join(tmpdir(), 'cd-hold-'));
  const store = await SampleStore.open(dir, log, { quality: qualityGate(() => policy) });
  stores.push(store);
  const queue = new UploadQueue({ store, log, target: async () => ({ ingestionUrl: 'http://127.0.0.1:9', apiKey: 'k' }) });
  return { store, queue, dir };
}

describe('holding flagged samples back', () => {
  it('holds errors, all findings, or nothing, by the setting', () => {
    expect([null, 'warning', 'error'].map((f) => holds('errors', f as never))).toEqual([false, false, true]);
    expect([null, 'warning', 'error'].map((f) => holds('all', f as never))).toEqual([false, true, true]);
    expect([null, 'warning', 'error'].map((f) => holds('off', f as never))).toEqual([false, false, false]);
  });

  it('checks a new sample before indexing it: a held one is never queued, the others are', async () => {
    const { store } = await open({ qualityHold: 'errors', qualityMinLengthMs: 0 });
    const clean = await store.addBytes(input('clean.cbor'), CLEAN);
    const warned = await store.addBytes(input('warned.cbor'), ONE_FLAT);
    const dead = await store.addBytes(input('dead.cbor'), DEAD);
    expect([clean, warned, dead].map((s) => [s.state, s.flagged, s.heldBack])).toEqual([['queued', null, false], ['queued', 'warning', false], ['local', 'error', true]]);
    expect(dead.quality?.findings[0]).toMatchObject({ code: 'flat-axis', severity: 'error' });
    // Not asked to queue: flagged, but not "held" from anything.
    const kept = await store.addBytes(input('kept.cbor', false), DEAD);
    expect([kept.state, kept.flagged, kept.heldBack]).toEqual(['local', 'error', false]);
    // What the list and its filter show comes from the stored row.
    expect(store.list({ flagged: true }).map((s) => s.name)).toEqual(['warned.cbor', 'dead.cbor', 'kept.cbor']);
    expect(store.count({ flagged: false })).toBe(1);
    expect(store.count({ states: ['local'], flagged: true })).toBe(2);
  });

  it('a sample added without a length (a dropped or watched file) takes the one its file shows', async () => {
    const { store } = await open({ qualityHold: 'off', qualityMinLengthMs: 0 });
    expect((await store.addBytes(input('clean.cbor'), CLEAN)).lengthMs).toBe(1000); // 100 rows × 10 ms
    expect((await store.addBytes({ ...input('told.cbor'), lengthMs: 999 }, sensor(100, (i) => [i, -i]))).lengthMs).toBe(999); // the source's own figure wins
  });

  it('enqueue keeps held samples out unless forced ("Upload anyway"); a later policy applies to the next enqueue', async () => {
    const policy = { qualityHold: 'all' as Settings['qualityHold'], qualityMinLengthMs: 0 };
    const { store, queue } = await open(policy);
    const a = await store.addBytes(input('a.cbor', false), ONE_FLAT);
    const b = await store.addBytes(input('b.cbor', false), CLEAN);
    expect(queue.enqueueChecked([a.id, b.id])).toEqual({ queued: 1, held: 1 });
    expect([store.get(a.id).state, store.get(a.id).heldBack]).toEqual(['local', true]);
    expect(queue.enqueueChecked([a.id], true)).toEqual({ queued: 1, held: 0 });
    expect([store.get(a.id).state, store.get(a.id).heldBack]).toEqual(['queued', false]);
    const c = await store.addBytes(input('c.cbor'), ONE_FLAT);
    expect(c.state).toBe('local');
    policy.qualityHold = 'errors';
    expect(queue.enqueueChecked([c.id])).toEqual({ queued: 1, held: 0 });
    expect(store.get(c.id).heldBack).toBe(false);
    policy.qualityHold = 'off';
    const d = await store.addBytes(input('d.cbor'), DEAD);
    expect([d.state, d.flagged, d.heldBack]).toEqual(['queued', 'error', false]);
  });

  it('a store without a quality gate (the CLI) checks and holds nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-hold-'));
    const store = await SampleStore.open(dir, log);
    stores.push(store);
    const s = await store.addBytes(input('dead.cbor'), DEAD);
    expect([s.state, s.quality, s.flagged, s.heldBack]).toEqual(['queued', null, null, false]);
    expect(store.holdBack([s.id], false)).toEqual([]);
  });

  it('a sample index from before quality checks is upgraded in place, its samples unchecked', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-hold-'));
    const old = await SampleStore.open(dir, log);
    const s = await old.addBytes(input('old.cbor', false), DEAD);
    await old.close();
    // Back to schema 2, as the previous release left it.
    const db = new Db(join(dir, 'samples.db'));
    db.exec(`DROP TRIGGER samples_text_insert; DROP TRIGGER samples_text_delete; DROP TRIGGER samples_text_update; DROP TABLE samples_text;
      DROP INDEX samples_by_created; DROP INDEX samples_by_name; DROP INDEX samples_by_label; DROP INDEX samples_by_length; DROP INDEX samples_by_category;
      DROP INDEX samples_by_capture_source; DROP INDEX samples_by_session; DROP INDEX samples_length_unknown; ALTER TABLE samples DROP COLUMN length_checked;`);
    db.exec('DROP TABLE takes; DROP TABLE classifications; DROP INDEX samples_by_flagged; ALTER TABLE samples DROP COLUMN quality; ALTER TABLE samples DROP COLUMN flagged; ALTER TABLE samples DROP COLUMN held_back; ALTER TABLE samples DROP COLUMN claimed_by;');
    db.exec('DROP TABLE writers;');
    db.pragma('user_version = 2');
    db.close();
    const store = await SampleStore.open(dir, log, { quality: qualityGate(() => ({ qualityHold: 'errors', qualityMinLengthMs: 0 })) });
    stores.push(store);
    expect(store.get(s.id)).toMatchObject({ name: 'old.cbor', quality: null, flagged: null, heldBack: false });
    // 3 = quality checks; 4 = kept classifications and takes; 5 = finding samples (sort and filter
    // indexes, search); 6 = what each kept classification says ("model says" filter); 7 = local
    // models' results beside the platform's (the newest-result index leads with the time); 8 = the
    // runs that may be writing to samples/ (writer-notes.ts); 9 = which process marked a sample 'uploading'.
    expect(store.db.pragma('user_version', { simple: true })).toBe(9);
    // The search index was filled from the rows already there.
    expect((store.db.prepare('SELECT count(*) AS n FROM samples_text WHERE samples_text MATCH ?').get('"old.c"') as { n: number }).n).toBe(1);
  });
});
