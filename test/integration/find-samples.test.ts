// Finding samples (issue 22) through the contract, on the real core: files added by path, a capture
// from the simulated source, uploads to the platform emulator, SQLite on disk. Search, every filter
// and their combinations, sort and paging, bulk actions on all matching, and the class balance's
// true counts with the platform unreachable and reachable.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SOURCE_ID, type BulkResult, type ClassBalance, type RecordingStatus, type Sample, type SampleFacets } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { startCore, useCleanups, type Call } from '../support/core-harness.js';
import { encodeCbor, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

const KEY = 'ei_test_key';
const cleanups = useCleanups();

type Page = { samples: Sample[]; total: number; offset: number; limit: number };
type Summary = { balance: ClassBalance; platformError: string | null };

async function until(pred: () => boolean | Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `rows` rows of three noisy axes at 10 ms: 60 rows pass every quality check, 3 rows are too short. */
let seed = 7;
function take(rows: number): Buffer {
  const noise = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 2;
  return encodeCbor(sensorDoc(Array.from({ length: rows }, (_, r) => [0, 1, 2].map((a) => Math.round((Math.sin(r / 4 + a) * 9.81 + noise()) * 100) / 100)), 10));
}

async function addFiles(call: Call, dir: string, files: Array<{ name: string; bytes: Buffer }>, o: Record<string, unknown>): Promise<Sample[]> {
  for (const f of files) await writeFile(join(dir, f.name), f.bytes);
  const { results } = await call<{ results: Array<{ status: string; sample?: Sample; reason?: string }> }>('samples.addPaths', { paths: files.map((f) => join(dir, f.name)), category: 'training', ...o });
  for (const r of results) if (!r.sample) throw new Error(`not added: ${r.reason}`);
  return results.map((r) => r.sample!);
}

const query = (call: Call, input: Record<string, unknown>) => call<Page>('samples.query', input);
const names = (p: Page) => p.samples.map((s) => s.name);

describe('samples.query: search, filters, sort and paging in the index', () => {
  // One data folder for the read-only tests: built once, through the contract.
  let call: Call;
  let all: Sample[] = [];
  let capture: Sample;
  const own: Array<() => unknown> = [];
  beforeAll(async () => {
    const h = await startCore(own, { serial: null, uploads: false, settings: { qualityHold: 'off' } });
    call = h.call;
    const dir = join(await mkdtemp(join(tmpdir(), 'cd-find-')), 'files');
    await mkdir(dir);
    await addFiles(call, dir, [1, 2, 3, 4].map((i) => ({ name: `idle.${i}.cbor`, bytes: take(60) })), { metadata: { subject: 'Ana' } });
    await addFiles(call, dir, [5, 6].map((i) => ({ name: `idle.${i}.cbor`, bytes: take(60) })), { metadata: { subject: 'Jo' } });
    await addFiles(call, dir, [1, 2, 3].map((i) => ({ name: `wave.${i}.cbor`, bytes: take(60) })), { category: 'testing', metadata: { subject: 'Ana', room: 'Küche' } });
    await addFiles(call, dir, [{ name: 'wave.4.cbor', bytes: take(3) }], { category: 'testing' }); // too short: flagged
    await addFiles(call, dir, [{ name: 'noise.1.cbor', bytes: take(60) }, { name: 'noise.2.cbor', bytes: take(60) }], { label: null, category: 'split' });
    await addFiles(call, dir, [{ name: 'yes.1.wav', bytes: wav(800) }], { category: 'testing' });
    // A note, as the system writes them (signing, recovery): straight into the index of the same folder.
    const info = await call<{ dataDir: string }>('app.info');
    const side = await SampleStore.open(info.dataDir, createLogger(() => {}));
    side.db.prepare("UPDATE samples SET note = 'checked by Carla' WHERE name = 'idle.5.cbor'").run();
    await side.close();
    // A capture from the simulated accelerometer: its source and session are filters too.
    const rec = await call<RecordingStatus>('record.start', { sourceIds: [DEMO_SOURCE_ID], label: 'shake', category: 'training', lengthMs: 600, queue: false });
    const done = await h.saved(rec.sessionId);
    capture = (await query(call, { filter: { ids: done.sampleIds } })).samples[0]!;
    all = (await query(call, { limit: 100 })).samples;
  }, 60_000);
  afterAll(async () => {
    for (const c of own.splice(0).reverse()) await c();
  });

  it('lists newest first by default and counts them all', async () => {
    const p = await query(call, {});
    expect(p.total).toBe(14);
    expect(p.samples.map((s) => s.created)).toEqual([...p.samples.map((s) => s.created)].sort().reverse());
    expect(p.samples[0]!.id).toBe(capture.id);
    expect(capture).toMatchObject({ label: 'shake', extra: expect.objectContaining({ source: DEMO_SOURCE_ID }), metadata: expect.objectContaining({ session: expect.any(String) }) });
  });

  it('searches name, label, metadata values and note, case-insensitive, every word, short words too', async () => {
    const search = async (text: string, filter: Record<string, unknown> = {}) => names(await query(call, { filter: { text, ...filter }, sort: { by: 'name', dir: 'asc' } }));
    expect(await search('WAVE')).toEqual(['wave.1.cbor', 'wave.2.cbor', 'wave.3.cbor', 'wave.4.cbor']);
    expect(await search('dle.5')).toEqual(['idle.5.cbor']); // part of a name
    expect(await search('ana')).toEqual(['idle.1.cbor', 'idle.2.cbor', 'idle.3.cbor', 'idle.4.cbor', 'wave.1.cbor', 'wave.2.cbor', 'wave.3.cbor']); // metadata value
    expect(await search('subject')).toEqual([]); // keys are not searched
    expect(await search('carla')).toEqual(['idle.5.cbor']); // note
    expect(await search('küche')).toEqual(['wave.1.cbor', 'wave.2.cbor', 'wave.3.cbor']);
    expect(await search('KÜCHE')).toEqual(['wave.1.cbor', 'wave.2.cbor', 'wave.3.cbor']);
    expect(await search('ana wave')).toEqual(['wave.1.cbor', 'wave.2.cbor', 'wave.3.cbor']); // every word
    expect(await search('jo')).toEqual(['idle.5.cbor', 'idle.6.cbor']); // two letters: not through the trigrams, still found
    expect(await search('a"b%')).toEqual([]); // quotes and wildcards are text
    expect(await search('   ')).toHaveLength(14);
  });

  it('filters by labels (several, and unlabeled), category (training holds split), state, kind, quality, source, session and date', async () => {
    const count = async (filter: Record<string, unknown>) => (await query(call, { filter })).total;
    expect(await count({ labels: ['idle', 'wave'] })).toBe(10);
    expect(await count({ labels: [null] })).toBe(2);
    expect(await count({ labels: ['yes', null] })).toBe(3);
    expect(await count({ categories: ['testing'] })).toBe(5);
    expect(await count({ categories: ['training'] })).toBe(9); // 6 idle, the capture, 2 split
    expect(await count({ categories: ['split'] })).toBe(2);
    expect(await count({ states: ['local'] })).toBe(14);
    expect(await count({ states: ['uploaded', 'queued'] })).toBe(0);
    expect(await count({ kinds: ['audio'] })).toBe(1);
    // The take of three rows is too short, the WAV is silent: both errors.
    expect(names(await query(call, { filter: { flagged: true } }))).toEqual(['yes.1.wav', 'wave.4.cbor']);
    expect(names(await query(call, { filter: { findings: ['too-short'] } }))).toEqual(['wave.4.cbor']);
    expect(names(await query(call, { filter: { findings: ['silence', 'clipping'] } }))).toEqual(['yes.1.wav']);
    expect(names(await query(call, { filter: { severities: ['error'] } }))).toEqual(['yes.1.wav', 'wave.4.cbor']);
    expect(await count({ severities: ['warning'] })).toBe(0);
    expect(await count({ flagged: false })).toBe(12);
    expect(names(await query(call, { filter: { sources: [DEMO_SOURCE_ID] } }))).toEqual([capture.name]);
    expect(names(await query(call, { filter: { sessions: [capture.metadata['session']!] } }))).toEqual([capture.name]);
    expect(await count({ sources: ['serial:/dev/none'] })).toBe(0);
    const byAge = [...all].sort((a, b) => (a.created < b.created ? -1 : 1));
    const from = byAge[3]!.created;
    const before = byAge[8]!.created;
    const inRange = byAge.filter((s) => s.created >= from && s.created < before).length;
    expect(await count({ createdFrom: from, createdBefore: before })).toBe(inRange);
    expect(await count({ createdFrom: new Date(Date.now() + 60_000).toISOString() })).toBe(0);
    expect(await count({ ids: [] })).toBe(0);
    expect(await count({ labels: [], categories: [] })).toBe(14); // empty lists constrain nothing
  });

  it('combines filters (all must hold) with search and sort', async () => {
    const p = await query(call, { filter: { text: 'ana', labels: ['idle', 'wave'], categories: ['testing'], flagged: false }, sort: { by: 'name', dir: 'desc' } });
    expect(names(p)).toEqual(['wave.3.cbor', 'wave.2.cbor', 'wave.1.cbor']);
    expect(p.total).toBe(3);
    expect((await query(call, { filter: { labels: ['idle'], categories: ['testing'] } })).total).toBe(0);
  });

  it('sorts by name, label, length and created, both ways, and pages without overlap or gaps', async () => {
    const byName = names(await query(call, { sort: { by: 'name', dir: 'asc' }, limit: 100 }));
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    const byLength = (await query(call, { sort: { by: 'length', dir: 'desc' }, limit: 100 })).samples.map((s) => s.lengthMs);
    expect(byLength[0]).toBe(800); // the WAV
    expect(byLength.at(-1)).toBe(30); // the too-short take
    expect(byLength).toEqual([...byLength].sort((a, b) => b! - a!));
    const byLabel = (await query(call, { sort: { by: 'label', dir: 'asc' }, limit: 100 })).samples.map((s) => s.label);
    expect(byLabel).toEqual([null, null, 'idle', 'idle', 'idle', 'idle', 'idle', 'idle', 'shake', 'wave', 'wave', 'wave', 'wave', 'yes']);
    const oldest = (await query(call, { sort: { by: 'created', dir: 'asc' }, limit: 1 })).samples[0]!;
    expect(oldest.created).toBe([...all].map((s) => s.created).sort()[0]);

    // Pages of 4 over the sort by name: together exactly the whole list, in order; the last page is short.
    const pages: string[] = [];
    for (let offset = 0; offset < 14; offset += 4) {
      const p = await query(call, { sort: { by: 'name', dir: 'asc' }, limit: 4, offset });
      expect(p).toMatchObject({ total: 14, offset, limit: 4 });
      pages.push(...names(p));
    }
    expect(pages).toEqual(byName);
    const last = await query(call, { sort: { by: 'name', dir: 'asc' }, limit: 4, offset: Math.floor((14 - 1) / 4) * 4 });
    expect(names(last)).toEqual(byName.slice(12));
    expect((await query(call, { limit: 4, offset: 100 })).samples).toEqual([]);
  });

  it('says every id matching in one call, and what the folder holds for the filter chips', async () => {
    const m = await call<{ ids: string[]; total: number }>('samples.idsMatching', { filter: { labels: ['idle'] }, sort: { by: 'name', dir: 'asc' } });
    expect(m.total).toBe(6);
    expect(m.ids).toEqual(all.filter((s) => s.label === 'idle').sort((a, b) => (a.name < b.name ? -1 : 1)).map((s) => s.id));
    expect((await call<{ ids: string[]; total: number }>('samples.idsMatching', { filter: { labels: ['idle'] }, limit: 2 }))).toMatchObject({ total: 6, ids: expect.any(Array) });
    const f = await call<SampleFacets>('samples.facets');
    expect(f.total).toBe(14);
    expect(f.labels).toEqual([{ label: 'idle', count: 6 }, { label: 'shake', count: 1 }, { label: 'wave', count: 4 }, { label: 'yes', count: 1 }, { label: null, count: 2 }]);
    expect(f.categories).toEqual([{ category: 'split', count: 2 }, { category: 'testing', count: 5 }, { category: 'training', count: 7 }]);
    expect(f.findings).toEqual([{ code: 'silence', count: 1 }, { code: 'too-short', count: 1 }]);
    expect(f.sources).toEqual([{ source: DEMO_SOURCE_ID, count: 1 }]);
    expect(f.sessions).toEqual([{ session: capture.metadata['session'], count: 1, first: capture.created, last: capture.created }]);
    expect(f.kinds).toEqual([{ kind: 'audio', count: 1 }, { kind: 'sensor', count: 13 }]);
    // The "Flagged" button's count: samples with any finding, each once.
    expect(f.flagged).toBe(2);
    expect(f.flagged).toBe((await call<{ total: number }>('samples.query', { filter: { flagged: true } })).total);
  });

  it('checks its input like every contract method', async () => {
    await expect(call('samples.query', { sort: { by: 'size', dir: 'asc' } })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(call('samples.query', { filter: { createdFrom: 'yesterday' } })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(call('samples.query', { filter: { nope: 1 } })).rejects.toMatchObject({ code: 'InvalidArguments' });
    await expect(call('samples.query', { limit: 5001 })).rejects.toMatchObject({ code: 'InvalidArguments' });
  });
});

/** A folder with uploaded, queued and local samples: the platform emulator confirmed the uploaded ones. */
async function uploadedWorld() {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  const h = await startCore(cleanups, { serial: null, emulator: srv, apiKey: KEY, settings: { qualityHold: 'off' } });
  const dir = join(await mkdtemp(join(tmpdir(), 'cd-bulk-')), 'files');
  await mkdir(dir);
  const up = [
    ...(await addFiles(h.call, dir, [1, 2, 3, 4, 5, 6].map((i) => ({ name: `idle.${i}.cbor`, bytes: take(60) })), { queue: true })),
    ...(await addFiles(h.call, dir, [1, 2].map((i) => ({ name: `wave.${i}.cbor`, bytes: take(60) })), { category: 'testing', queue: true })),
  ];
  await until(async () => (await query(h.call, { filter: { states: ['uploaded'] } })).total === up.length);
  await h.call('queue.pause');
  const queued = await addFiles(h.call, dir, [7, 8].map((i) => ({ name: `idle.${i}.cbor`, bytes: take(60) })), { queue: true });
  const local = [
    ...(await addFiles(h.call, dir, [9, 10, 11].map((i) => ({ name: `idle.${i}.cbor`, bytes: take(60) })), {})),
    ...(await addFiles(h.call, dir, [3].map((i) => ({ name: `wave.${i}.cbor`, bytes: take(60) })), { category: 'testing' })),
    ...(await addFiles(h.call, dir, [{ name: 'x.1.cbor', bytes: take(60) }], { label: null })),
  ];
  return { srv, dir, ...h, up, queued, local };
}

describe('samples.bulk: actions on every sample a filter matches', () => {
  it('says what a relabel would change and why the rest stays, refuses a stale count, then relabels all matching', async () => {
    const w = await uploadedWorld();
    const filter = { labels: ['idle'] };
    const preview = await w.call<BulkResult>('samples.bulk', { filter, action: { type: 'label', label: 'rest' }, dryRun: true });
    expect(preview).toEqual({ matched: 11, changed: 5, unchanged: [{ count: 6, reason: 'already on the platform: change their label there', code: 'on-platform' }], export: null });
    expect((await query(w.call, { filter: { labels: ['rest'] } })).total).toBe(0); // a dry run changes nothing
    await expect(w.call('samples.bulk', { filter, action: { type: 'label', label: 'rest' }, expectTotal: 10 })).rejects.toThrow(/now matches 11 samples, not the 10 you confirmed/);
    const done = await w.call<BulkResult>('samples.bulk', { filter, action: { type: 'label', label: 'rest' }, expectTotal: 11 });
    expect(done).toMatchObject({ matched: 11, changed: 5 });
    expect((await query(w.call, { filter: { labels: ['rest'] } })).total).toBe(5);
    expect((await query(w.call, { filter: { text: 'rest' } })).total).toBe(5); // the search index follows
    const relabelled = (await query(w.call, { filter: { labels: ['rest'] } })).samples.map((s) => s.id);
    const told = () => new Set(w.events.flatMap(([n, p]) => (n === 'samples.changed' ? (p as { ids: string[] }).ids : [])));
    await until(() => relabelled.every((id) => told().has(id))); // every view hears of them
  });

  it('sets the category, queues, takes out of the queue, exports and deletes all matching', async () => {
    const w = await uploadedWorld();
    const cat = await w.call<BulkResult>('samples.bulk', { filter: { states: ['local'] }, action: { type: 'category', category: 'testing' } });
    expect(cat).toMatchObject({ matched: 5, changed: 5 });
    expect((await query(w.call, { filter: { categories: ['testing'] } })).total).toBe(7);

    // The queue is paused: what is queued stays queued.
    const q = await w.call<BulkResult>('samples.bulk', { filter: { labels: ['idle'] }, action: { type: 'queue' } });
    expect(q).toEqual({ matched: 11, changed: 3, unchanged: [{ count: 2, reason: 'already in the upload queue', code: 'in-queue' }, { count: 6, reason: 'already on the platform', code: 'on-platform' }], export: null });
    expect((await query(w.call, { filter: { states: ['queued'] } })).total).toBe(5);
    const dq = await w.call<BulkResult>('samples.bulk', { filter: { states: ['queued'], text: 'idle' }, action: { type: 'dequeue' } });
    expect(dq).toMatchObject({ matched: 5, changed: 5 });
    expect((await query(w.call, { filter: { states: ['local'] } })).total).toBe(7);

    const out = join(await mkdtemp(join(tmpdir(), 'cd-bulk-export-')), 'out');
    const ex = await w.call<BulkResult>('samples.bulk', { filter: { categories: ['testing'] }, action: { type: 'export', jobId: 'export-1', outDir: out } });
    expect(ex).toMatchObject({ matched: 7, changed: 7, export: { files: 7, dir: out } });
    expect((await readdir(join(out, 'testing'))).sort()).toHaveLength(7);
    expect(JSON.parse(await readFile(join(out, 'info.labels'), 'utf8')).files).toHaveLength(7);
    expect(w.events.some(([n, p]) => n === 'samples.progress' && (p as { jobId: string; state: string }).jobId === 'export-1' && (p as { state: string }).state === 'done')).toBe(true);

    const del = await w.call<BulkResult>('samples.bulk', { filter: { states: ['local'] }, action: { type: 'delete' }, dryRun: true });
    expect(del).toMatchObject({ matched: 7, changed: 7, unchanged: [] });
    await w.call('samples.bulk', { filter: { states: ['local'] }, action: { type: 'delete' }, expectTotal: 7 });
    expect((await query(w.call, {})).total).toBe(8);
    expect((await query(w.call, { filter: { text: 'idle.9' } })).total).toBe(0); // gone from the search index too
  });
});

describe('dataset.summary: the class balance counts everything this folder knows, online or not', () => {
  it('with the platform unreachable, uploaded samples are counted from the index and the totals add up', async () => {
    const w = await uploadedWorld();
    await w.call('settings.set', { managementUrl: 'http://127.0.0.1:9/v1' }); // nothing listens there
    const { balance: b, platformError } = await w.call<Summary>('dataset.summary');
    expect(platformError).toMatch(/Could not reach the management API/);
    expect(b.platformReached).toBe(false);
    expect(b.all).toMatchObject({ uploaded: 8, queued: 2, local: 5, failed: 0, total: 15, platform: null, difference: null, differenceText: null });
    expect(b.categories.training).toMatchObject({ uploaded: 6, queued: 2, local: 4, total: 12 });
    expect(b.categories.testing).toMatchObject({ uploaded: 2, queued: 0, local: 1, total: 3 });
    expect(b.categories.training.labels.map((l) => [l.label, l.uploaded, l.queued, l.local, l.total])).toEqual([['idle', 6, 2, 3, 11], [null, 0, 0, 1, 1]]);
    expect(b.labels.map((l) => [l.label, l.total])).toEqual([['idle', 11], ['wave', 3], [null, 1]]);
    expect(b.all.totalLengthMs).toBe(15 * 600);
    expect(b.summary).toBe("15 samples in this data folder: 8 uploaded, 2 queued, 5 local. The platform's own numbers are not shown (" +
      platformError!.replace(/\.$/, '') + '); uploaded counts what it confirmed to this computer.');
    // Every row's total is what the table shows when that row is clicked.
    for (const [cat, c] of Object.entries(b.categories)) {
      for (const l of c.labels) expect((await query(w.call, { filter: { categories: [cat], labels: [l.label] } })).total, `${cat}/${l.label}`).toBe(l.total);
    }
    // Without asking the platform at all: the same counts at once.
    const quick = await w.call<Summary>('dataset.summary', { platform: false });
    expect(quick.balance.all).toEqual(b.all);
    expect(quick.platformError).toBeNull();
  });

  it('with the platform reachable, its numbers stand beside them and the difference is said in words', async () => {
    const w = await uploadedWorld();
    // 12 more idle samples reach the project from another computer.
    const other = join(await mkdtemp(join(tmpdir(), 'cd-other-')), 'files');
    await mkdir(other);
    const elsewhere = await startCore(cleanups, { serial: null, emulator: w.srv, apiKey: KEY, settings: { qualityHold: 'off' } });
    await addFiles(elsewhere.call, other, Array.from({ length: 12 }, (_, i) => ({ name: `idle.${100 + i}.cbor`, bytes: take(60) })), { queue: true });
    await until(() => w.srv.samples.length === 20);
    const { balance: b, platformError } = await w.call<Summary>('dataset.summary');
    expect(platformError).toBeNull();
    expect(b.platformReached).toBe(true);
    const idle = b.categories.training.labels.find((l) => l.label === 'idle')!;
    expect(idle).toMatchObject({ uploaded: 6, queued: 2, local: 3, total: 11, platform: { count: 18, totalLengthMs: 18 * 600 }, difference: 12 });
    expect(idle.differenceText).toBe('12 more on the platform than uploaded from here (added there or from another computer)');
    const wave = b.categories.testing.labels.find((l) => l.label === 'wave')!;
    expect(wave).toMatchObject({ uploaded: 2, platform: { count: 2 }, difference: 0, differenceText: 'the same as uploaded from here' });
    expect(b.all).toMatchObject({ uploaded: 8, total: 15, platform: { count: 20 }, difference: 12 });
    expect(b.summary).toBe('15 samples in this data folder: 8 uploaded, 2 queued, 5 local. The platform has 20: 12 more on the platform than uploaded from here (added there or from another computer).');

    // A sample deleted on the platform: fewer there than uploaded from here.
    w.srv.samples.splice(w.srv.samples.findIndex((s) => s.label === 'wave'), 1);
    const after = (await w.call<Summary>('dataset.summary')).balance;
    expect(after.categories.testing.labels.find((l) => l.label === 'wave')).toMatchObject({ difference: -1, differenceText: '1 fewer on the platform than uploaded from here (deleted or moved to another category there)' });
  });
});
