// The windows of kept local results as a model test reuses them (ClassificationStore.localWindows),
// on a real sample index: one statement for many samples, only the windows read and checked. A
// result of another build, the platform's, one of two blocks, or one whose windows this version
// cannot read is left out (the sample is classified again), never reused half-read.
import { describe, expect, it } from 'vitest';
import { ClassificationStore } from '../../src-main/core/classify/classification-store.js';
import type { ModelEntry } from '../../src-main/core/contract/model-schema.js';
import { localResult, localVariant } from '../../src-main/core/model/classify-windows.js';
import { useCleanups } from '../support/cleanups.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { tempStore } from '../support/temp-store.js';

const cleanups = useCleanups();
const entry = { name: 'gestures', hash: 'ab'.repeat(32), description: { windowMs: 1000, labels: ['idle', 'wave'], hasAnomaly: false } } as unknown as ModelEntry;
const other = { ...entry, hash: 'cd'.repeat(32) } as ModelEntry;
const window = (i: number, top: string) => ({ index: i, startMs: i * 500, endMs: i * 500 + 1000, label: top, confidence: 0.9, scores: { idle: top === 'idle' ? 0.9 : 0.1, wave: top === 'wave' ? 0.9 : 0.1 }, anomaly: null, uncertain: false });

describe('kept windows for a model test', () => {
  it('reads the windows of many samples at once and leaves out what it cannot reuse', async () => {
    const { store } = await tempStore(cleanups, 'cd-kept-windows-');
    const kept = new ClassificationStore(store.db);
    const add = (name: string) => store.addBytes({ name: `${name}.cbor`, kind: 'sensor', label: 'idle', category: 'testing' }, encodeCbor(sensorDoc([[1, 2], [3, Number(name.length)]], 10)));
    const good = await add('good');
    const second = await add('second1');
    const twoBlocks = await add('twoBlocks');
    const broken = await add('broken12');
    const otherBuild = await add('otherBuild');
    const never = await add('never12345');
    const o = { lengthMs: 2000, strideMs: 500, threshold: 0.6 };
    const goodWindows = [window(0, 'idle'), window(1, 'wave')];
    kept.keep(localResult(entry, good, goodWindows, o));
    kept.keep(localResult(entry, second, [window(0, 'wave')], o));
    const two = localResult(entry, twoBlocks, [window(0, 'idle')], o);
    kept.keep({ ...two, blocks: [two.blocks[0]!, { ...two.blocks[0]!, id: 1 }] });
    kept.keep(localResult(other, otherBuild, [window(0, 'idle')], o));
    kept.keep(localResult(entry, broken, [window(0, 'idle')], o));
    // Written by some other version: a window without its scores.
    store.db.prepare(`UPDATE classifications SET result = json_remove(result, '$.blocks[0].windows[0].scores') WHERE sample_id = ?`).run(broken.id);

    const ids = [good, second, twoBlocks, broken, otherBuild, never].map((s) => s.id);
    const got = kept.localWindows(ids, localVariant(entry.hash));
    expect([...got.keys()].sort()).toEqual([good.id, second.id].sort());
    expect(got.get(good.id)).toEqual(goodWindows);
    expect(got.get(second.id)).toEqual([window(0, 'wave')]);
    expect(kept.localWindows(ids, localVariant(other.hash)).get(otherBuild.id)).toEqual([window(0, 'idle')]);
    expect(kept.localWindows([], localVariant(entry.hash)).size).toBe(0);
  });
});
