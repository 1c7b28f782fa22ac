// The "model says" filter and facet of finding samples (issue 22 over issue 21's kept results), on a
// real sample index in a temp folder: results are read from classify/v2-shaped answers and kept by
// the classification store, so the JSON the SQL reads is the JSON the app writes.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClassificationStore } from '../../src-main/core/classify/classification-store.js';
import { digestOf, readClassification, summarize } from '../../src-main/core/classify/classify-result.js';
import type { ClassifyVariant } from '../../src-main/core/contract/classify-schema.js';
import { collectSummary } from '../../src-main/core/classify/collect-summary.js';
import type { Category, SampleQueryFilter } from '../../src-main/core/contract/contract.js';
import { localResult, localVariant } from '../../src-main/core/model/classify-windows.js';
import type { ModelEntry } from '../../src-main/core/contract/model-schema.js';
import { runBulk } from '../../src-main/core/samples/bulk-actions.js';
import { openDb } from '../../src-main/core/samples/db.js';
import { Db } from '../../src-main/core/samples/sqlite.js';
import { facets, querySamples, whereOf } from '../../src-main/core/samples/sample-query.js';
import { useCleanups } from '../support/cleanups.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { tempStore } from '../support/temp-store.js';

const cleanups = useCleanups();

async function setup() {
  const { dir: dataDir, store } = await tempStore(cleanups, 'cd-model-says-');
  const kept = new ClassificationStore(store.db);
  let platformId = 100;
  /** A sample with `label`, as the queue leaves an uploaded one (platform id), unless `uploaded` is false. */
  const sample = async (name: string, label: string | null, o: { category?: Category; uploaded?: boolean } = {}) => {
    const s = await store.addBytes({ name: `${name}.cbor`, kind: 'sensor', label, category: o.category ?? 'training' }, encodeCbor(sensorDoc([[1, 2], [3, 4]], 10)));
    if (o.uploaded !== false) store.db.prepare('UPDATE samples SET platform_sample_id = ? WHERE id = ?').run(++platformId, s.id);
    return store.get(s.id);
  };
  /**
   * Keeps a classification of `id` made at `at`: one learn block per entry of `blocks`, each the
   * top label of its windows in order (the other labels of the block score lower).
   */
  const classify = (id: string, at: string, blocks: string[][], o: { variant?: ClassifyVariant; impulseId?: number | null; platformSampleId?: number } = {}) => {
    const s = store.get(id);
    const labels = [...new Set(blocks.flat())].sort();
    const c = readClassification(
      {
        classifications: blocks.map((windows, b) => ({
          learnBlock: { id: 10 + b, name: `block ${b}` },
          result: windows.map((top) => Object.fromEntries(labels.map((l) => [l, l === top ? 0.8 : 0.2 / labels.length]))),
          minimumConfidenceRating: 0.6,
        })),
        sample: {},
        windowSizeMs: 1000,
        windowIncreaseMs: 500,
        alreadyInDatabase: false,
      },
      { sampleId: id, platformSampleId: o.platformSampleId ?? s.platformSampleId!, impulseId: o.impulseId ?? null, variant: o.variant ?? 'int8', classifiedAt: at, expected: s.label, localLengthMs: null },
    );
    kept.keep(c);
    return c;
  };
  /** Keeps a result made on this computer by model `model` (build `hash`), its windows' top labels in order. */
  const classifyLocally = (id: string, at: string, windows: string[], o: { model?: string; hash?: string } = {}) => {
    const s = store.get(id);
    const labels = [...new Set(windows)].sort();
    const entry = { name: o.model ?? 'gestures', hash: o.hash ?? 'ab'.repeat(32), description: { windowMs: 1000, labels, hasAnomaly: false } } as unknown as ModelEntry;
    const ws = windows.map((top, i) => ({ index: i, startMs: i * 500, endMs: i * 500 + 1000, label: top, confidence: 0.9, scores: Object.fromEntries(labels.map((l) => [l, l === top ? 0.9 : 0.1])), anomaly: null, uncertain: false }));
    const c = { ...localResult(entry, s, ws, { lengthMs: 500 * windows.length + 500, strideMs: 500, threshold: 0.6 }), classifiedAt: at };
    expect(c.blocks[0]!.summary).toEqual(summarize(ws, s.label, labels, 0.6));
    kept.keep(c);
    return c;
  };
  const names = (filter: SampleQueryFilter) => querySamples(store.db, { filter, sort: { by: 'name', dir: 'asc' }, limit: 100 }).samples.map((s) => s.name.replace('.cbor', ''));
  return { dataDir, store, kept, sample, classify, classifyLocally, names };
}

/**
 * The folder most tests use:
 * - changed: idle; said wave (int8), then idle (float32, newer): the newer one counts.
 * - wrong: idle; said idle, then wave (same impulse and variant, kept over the first).
 * - twoBlocks: wave; one block says wave, the other idle.
 * - unlabeled: no label; says wave.
 * - never: idle; never classified.
 * - reUploaded: idle; said wave for the platform sample it was before it was uploaded again.
 * - testing: wave, in testing; says wave.
 */
async function folder() {
  const t = await setup();
  const { sample, classify, store } = t;
  const changed = await sample('changed', 'idle');
  classify(changed.id, '2025-03-01T10:00:00.000Z', [['wave', 'wave', 'idle']], { variant: 'int8' });
  classify(changed.id, '2025-03-02T10:00:00.000Z', [['idle', 'idle', 'wave']], { variant: 'float32' });
  const wrong = await sample('wrong', 'idle');
  classify(wrong.id, '2025-03-01T10:00:00.000Z', [['idle', 'idle']]);
  classify(wrong.id, '2025-03-03T10:00:00.000Z', [['wave', 'wave', 'idle']]);
  const twoBlocks = await sample('twoBlocks', 'wave');
  classify(twoBlocks.id, '2025-03-01T10:00:00.000Z', [['wave', 'wave'], ['idle', 'idle', 'wave']]);
  const unlabeled = await sample('unlabeled', null);
  classify(unlabeled.id, '2025-03-01T10:00:00.000Z', [['wave', 'idle', 'wave']]);
  await sample('never', 'idle');
  const reUploaded = await sample('reUploaded', 'idle');
  classify(reUploaded.id, '2025-03-05T10:00:00.000Z', [['wave']], { platformSampleId: 1 });
  const testing = await sample('testing', 'wave', { category: 'testing' });
  classify(testing.id, '2025-03-01T10:00:00.000Z', [['wave']]);
  return { ...t, ids: { changed: changed.id, wrong: wrong.id, twoBlocks: twoBlocks.id, unlabeled: unlabeled.id, reUploaded: reUploaded.id }, store };
}

describe('samples.query: what the model says', () => {
  it('matches the top label of the newest kept classification only, for the platform sample it is now', async () => {
    const { names, kept, ids } = await folder();
    expect(names({ modelSays: ['wave'] })).toEqual(['testing', 'twoBlocks', 'unlabeled', 'wrong']);
    expect(names({ modelSays: ['idle'] })).toEqual(['changed', 'twoBlocks']);
    expect(names({ modelSays: ['idle', 'wave'] })).toEqual(['changed', 'testing', 'twoBlocks', 'unlabeled', 'wrong']);
    expect(names({ modelSays: ['shake'] })).toEqual([]);
    expect(names({ modelSays: [] })).toHaveLength(7); // an empty list constrains nothing
    // The same samples "Model says" shows, with the same newest result.
    const shown = kept.latest(Object.values(ids));
    expect([...shown.keys()].sort()).toEqual([ids.changed, ids.wrong, ids.twoBlocks, ids.unlabeled].sort());
    expect(shown.get(ids.changed)!.variant).toBe('float32');
    // Not the summary's lead: for a labeled sample that is its own label, whatever the model said.
    expect(digestOf(shown.get(ids.wrong)!).blocks[0]!.summary.lead).toBe('idle');
    expect(names({ modelSays: ['idle'] })).not.toContain('wrong');
  });

  it('for an unlabeled sample, says what its summary line leads with, ties too', async () => {
    const { sample, classify, names, kept } = await setup();
    const s = await sample('tie', null);
    // 2 windows each; "idle" comes first in the block's labels, so the summary ranks it first.
    classify(s.id, '2025-03-01T10:00:00.000Z', [['wave', 'idle', 'idle', 'wave']]);
    const lead = digestOf(kept.latest([s.id]).get(s.id)!).blocks[0]!.summary.lead;
    expect(lead).toBe('idle');
    expect(names({ modelSays: [lead!] })).toEqual(['tie']);
    expect(names({ modelSays: ['wave'] })).toEqual([]);
  });

  it('says a sample disagrees when labeled, classified, and a block of the newest result says another label', async () => {
    const { names } = await folder();
    expect(names({ modelDisagrees: true })).toEqual(['twoBlocks', 'wrong']);
    // Agreeing, unlabeled, unclassified, and classified only for an earlier upload: not disagreeing.
    expect(names({ modelDisagrees: false })).toEqual(['changed', 'never', 'reUploaded', 'testing', 'unlabeled']);
  });

  it('compares with the label the sample has now', async () => {
    const { names, store, ids } = await folder();
    store.db.prepare("UPDATE samples SET label = 'wave' WHERE id = ?").run(ids.wrong);
    expect(names({ modelDisagrees: true })).toEqual(['twoBlocks']);
    store.db.prepare("UPDATE samples SET label = 'idle' WHERE id = ?").run(ids.unlabeled);
    expect(names({ modelDisagrees: true })).toEqual(['twoBlocks', 'unlabeled']);
  });

  it('combines with the other filters', async () => {
    const { names } = await folder();
    expect(names({ modelSays: ['wave'], labels: ['idle'] })).toEqual(['wrong']);
    expect(names({ modelSays: ['wave'], labels: [null] })).toEqual(['unlabeled']);
    expect(names({ modelSays: ['wave'], categories: ['testing'] })).toEqual(['testing']);
    expect(names({ modelSays: ['wave'], modelDisagrees: false })).toEqual(['testing', 'unlabeled']);
    expect(names({ modelDisagrees: true, labels: ['wave'] })).toEqual(['twoBlocks']);
    expect(names({ modelDisagrees: false, states: ['local'], text: 'idle' })).toEqual(['changed', 'never', 'reUploaded']);
    expect(names({ modelSays: ['idle'], createdFrom: '2000-01-01T00:00:00Z', createdBefore: '2000-01-02T00:00:00Z' })).toEqual([]);
    expect(querySamples((await folder()).store.db, { filter: { modelSays: ['wave'], categories: ['training'] } }).total).toBe(3);
  });

  it('counts the samples per label the model says, and the classified ones, for the filter chips', async () => {
    const { store } = await folder();
    const f = facets(store.db);
    // twoBlocks counts under both of its blocks' labels; reUploaded's result is for an earlier upload.
    expect(f.modelSays).toEqual([{ label: 'idle', count: 2 }, { label: 'wave', count: 4 }]);
    expect(f.classified).toBe(5);
    expect(f.total).toBe(7);
  });

  it('passes over a kept result that is not JSON, as "Model says" does, and a bad one is still kept', async () => {
    const { store, names, ids } = await folder();
    store.db
      .prepare("INSERT INTO classifications (sample_id, impulse_id, variant, platform_sample_id, classified_at, result) SELECT id, 7, 'int8', platform_sample_id, '2025-04-01T00:00:00.000Z', '{not json' FROM samples WHERE id = ?")
      .run(ids.wrong);
    expect(names({ modelSays: ['wave'] })).toContain('wrong');
    expect(facets(store.db).classified).toBe(5);
  });

  it('works from the index: one seek per sample in a covering index, never the results themselves', async () => {
    const { store } = await folder();
    for (const filter of [{ modelSays: ['wave'] }, { modelDisagrees: true }, { modelDisagrees: false }]) {
      const w = whereOf(store.db, filter);
      const plan = (store.db.prepare(`EXPLAIN QUERY PLAN SELECT count(*) FROM samples ${w.sql}`).all(...w.args) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan.join('\n')).toMatch(/USING COVERING INDEX classifications_newest \(sample_id=\?\)/);
      expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('fills in what results kept before this version say when the index is opened', async () => {
    const { dataDir, store, ids } = await folder();
    // Back to the schema before the "model says" migration, results kept.
    store.db.exec(`DROP TRIGGER classifications_says_insert; DROP TRIGGER classifications_says_update; DROP INDEX classifications_newest;
      ALTER TABLE classifications DROP COLUMN says; ALTER TABLE samples DROP COLUMN claimed_by;`);
    const version = store.db.pragma('user_version', { simple: true }) as number;
    store.db.pragma('user_version = 5');
    await store.close();
    cleanups.splice(0);
    const raw = new Db(join(dataDir, 'samples.db'));
    raw.exec('DROP TABLE writers'); // migration 8's, after the close that took this store's note away
    raw.close();
    const db = openDb(dataDir);
    cleanups.push(() => db.close());
    expect(db.pragma('user_version', { simple: true })).toBe(version);
    expect(querySamples(db, { filter: { modelSays: ['idle'] } }).samples.map((s) => s.id).sort()).toEqual([ids.changed, ids.twoBlocks].sort());
    expect(facets(db).classified).toBe(5);
  });
});

describe('results made on this computer (a local model) count like the platform\'s', () => {
  it('a never-uploaded sample classified locally is found by what the model says, counted, and shown by "Model says"', async () => {
    const { sample, classifyLocally, names, kept, store } = await setup();
    const local = await sample('local', 'idle', { uploaded: false });
    const other = await sample('other', 'idle', { uploaded: false });
    expect(store.get(local.id).platformSampleId).toBeNull();
    const c = classifyLocally(local.id, '2025-03-01T10:00:00.000Z', ['wave', 'wave', 'idle']);
    expect(c).toMatchObject({ platformSampleId: null, impulseId: null, variant: `local:${'ab'.repeat(8)}`, local: { model: 'gestures', hash: 'ab'.repeat(32), threshold: 0.6 } });
    expect(names({ modelSays: ['wave'] })).toEqual(['local']);
    expect(names({ modelDisagrees: true })).toEqual(['local']);
    expect(names({ modelDisagrees: false })).toEqual(['other']);
    const f = facets(store.db);
    expect(f.modelSays).toEqual([{ label: 'wave', count: 1 }]);
    expect(f.classified).toBe(1);
    const shown = kept.latest([local.id, other.id]);
    expect([...shown.keys()]).toEqual([local.id]);
    const d = digestOf(shown.get(local.id)!);
    expect(d).toMatchObject({ id: local.id, variant: localVariant('ab'.repeat(32)), local: { model: 'gestures' }, source: 'on this computer: gestures' });
    expect(kept.get(local.id, null, localVariant('ab'.repeat(32)), null)?.classifiedAt).toBe('2025-03-01T10:00:00.000Z');
    expect(kept.getLocal(local.id, 'gestures')?.variant).toBe(localVariant('ab'.repeat(32)));
    expect(kept.getLocal(local.id, 'other-model')).toBeNull();
    // The platform's result of a sample that is not uploaded any more is not shown; a local one is.
    expect(kept.get(local.id, null, 'int8', null)).toBeNull();
  });

  it('the newest result wins, local or the platform\'s, in the filter, the facet and "Model says"', async () => {
    const { sample, classify, classifyLocally, names, kept, store } = await setup();
    const s = await sample('both', 'idle');
    classify(s.id, '2025-03-01T10:00:00.000Z', [['wave', 'wave']]);
    expect(names({ modelSays: ['wave'] })).toEqual(['both']);
    classifyLocally(s.id, '2025-03-02T10:00:00.000Z', ['idle', 'idle']);
    expect(names({ modelSays: ['wave'] })).toEqual([]);
    expect(names({ modelSays: ['idle'] })).toEqual(['both']);
    expect(facets(store.db).modelSays).toEqual([{ label: 'idle', count: 1 }]);
    expect(digestOf(kept.latest([s.id]).get(s.id)!).source).toBe('on this computer: gestures');
    classify(s.id, '2025-03-03T10:00:00.000Z', [['wave', 'wave']], { variant: 'float32', impulseId: 2 });
    expect(names({ modelSays: ['wave'] })).toEqual(['both']);
    expect(digestOf(kept.latest([s.id]).get(s.id)!).source).toBe('the platform, impulse 2, float32');
    // Another local model, newer still: wins again; both local results stay kept beside each other.
    classifyLocally(s.id, '2025-03-04T10:00:00.000Z', ['idle', 'idle'], { model: 'gestures-v2', hash: 'cd'.repeat(32) });
    expect(names({ modelSays: ['idle'] })).toEqual(['both']);
    expect(kept.getLocal(s.id, 'gestures')?.classifiedAt).toBe('2025-03-02T10:00:00.000Z');
    expect(digestOf(kept.latest([s.id]).get(s.id)!).source).toBe('on this computer: gestures-v2');
  });

  it('"collect more of" counts takes classified on this computer, uploaded or not, by their newest result', async () => {
    const { sample, classify, classifyLocally, kept } = await setup();
    const a = await sample('a', 'wave', { uploaded: false });
    const b = await sample('b', 'wave');
    kept.noteTakes([a.id, b.id], '2025-03-01T09:00:00.000Z', false);
    classifyLocally(a.id, '2025-03-01T10:00:00.000Z', ['wave', 'idle', 'idle']);
    classify(b.id, '2025-03-01T10:00:00.000Z', [['wave', 'wave']]);
    classifyLocally(b.id, '2025-03-02T10:00:00.000Z', ['wave', 'wave', 'wave', 'idle']);
    const takes = kept.takes(null, null);
    const sum = collectSummary(takes, kept.latest(takes.map((t) => t.id)), { since: null, sessionId: null });
    expect(sum).toMatchObject({ takes: 2, classifiedTakes: 2 });
    expect(sum.labels.find((l) => l.label === 'wave')).toMatchObject({ takes: 2, classifiedTakes: 2, windows: 7, agree: 4 });
    expect(sum.confusions).toEqual([{ expected: 'wave', predicted: 'idle', windows: 3 }]);
    expect(sum.collectMoreOf).toEqual([{ label: 'wave', reason: 'the model got 4 of 7 windows of wave right; it most often said idle (3 windows)' }]);
  });

  it('a local result holds whatever happens to the upload; the platform\'s holds only for the platform sample it was made for', async () => {
    const { sample, classify, classifyLocally, names, store } = await setup();
    const s = await sample('reup', 'idle');
    classifyLocally(s.id, '2025-03-01T10:00:00.000Z', ['idle']);
    classify(s.id, '2025-03-02T10:00:00.000Z', [['wave']]);
    expect(names({ modelSays: ['wave'] })).toEqual(['reup']);
    // Uploaded again as another platform sample: the platform's result no longer holds; the local one shows.
    store.db.prepare('UPDATE samples SET platform_sample_id = 999 WHERE id = ?').run(s.id);
    expect(names({ modelSays: ['wave'] })).toEqual([]);
    expect(names({ modelSays: ['idle'] })).toEqual(['reup']);
  });
});

describe('samples.bulk: acts on the samples the model-says filter matches', () => {
  it('relabels the idle samples the model disagrees with, no others, and deletes those it says are idle', async () => {
    const { store, names, ids } = await folder();
    const announced: string[] = [];
    const deps = {
      store,
      enqueue: () => ({ queued: 0, held: 0 }),
      dequeue: () => 0,
      announce: (changed: string[]) => announced.push(...changed),
      job: () => Promise.reject(new Error('no jobs here')),
    };
    const filter: SampleQueryFilter = { modelDisagrees: true, labels: ['idle'] };
    expect(await runBulk(deps, filter, { type: 'label', label: 'wave' }, { dryRun: true })).toEqual({ matched: 1, changed: 1, unchanged: [], export: null });
    expect(await runBulk(deps, filter, { type: 'label', label: 'wave' }, { expectTotal: 1 })).toMatchObject({ matched: 1, changed: 1 });
    expect(announced).toEqual([ids.wrong]);
    expect(store.get(ids.wrong).label).toBe('wave');
    expect(names({ modelDisagrees: true })).toEqual(['twoBlocks']);
    expect((await runBulk(deps, { modelSays: ['idle'] }, { type: 'delete' }, {})).changed).toBe(2);
    expect(names({})).toEqual(['never', 'reUploaded', 'testing', 'unlabeled', 'wrong']);
  });
});
