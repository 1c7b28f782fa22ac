import { describe, it, expect } from 'vitest';
import { CoreError } from '../../../src-main/core/errors.js';
import {
  buildInfoLabels, parseInfoLabels, type InfoLabelsEntry,
} from '../../../src-main/core/samples/formats/info-labels.js';

const entries: InfoLabelsEntry[] = [
  {
    path: 'training/idle.01.cbor', name: 'idle.01', category: 'training',
    label: { type: 'label', label: 'idle' }, metadata: { site: 'lab 2' },
  },
  { path: 'testing/noise.wav', name: 'noise', category: 'testing', label: { type: 'unlabeled' } },
  {
    path: 'training/session.json', name: 'session', category: 'training',
    label: {
      type: 'multi-label',
      labels: [{ label: 'idle', startIndex: 0, endIndex: 451 }, { label: 'wave', startIndex: 452, endIndex: 1847 }],
    },
  },
  {
    path: 'training/cup.jpg', name: 'cup', category: 'split', label: { type: 'label', label: 'cup' },
    boundingBoxes: [{ label: 'cup', x: 606, y: 103, width: 32, height: 17 }],
  },
  { path: 'post-processing/run.cbor', category: 'post-processing' },
];

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CoreError);
    return (err as CoreError).message;
  }
  throw new Error('expected a CoreError');
}

const parseOne = (file: unknown) => () => parseInfoLabels(JSON.stringify({ version: 1, files: [file] }));

describe('info.labels', () => {
  it('round-trips every label kind, metadata and bounding boxes', () => {
    const text = buildInfoLabels(entries);
    expect(parseInfoLabels(text)).toEqual({ version: 1, files: entries });
  });

  it('writes the platform layout: version 1, a files array, the platform key names', () => {
    const doc = JSON.parse(buildInfoLabels(entries.slice(0, 1)));
    expect(Object.keys(doc)).toEqual(['version', 'files']);
    expect(doc.files[0]).toEqual({
      path: 'training/idle.01.cbor', name: 'idle.01', category: 'training',
      label: { type: 'label', label: 'idle' }, metadata: { site: 'lab 2' },
    });
  });

  it('reads the multi-label example from the platform docs (inclusive endIndex, adjacent ranges)', () => {
    const doc = parseInfoLabels(`{
      "version": 1,
      "files": [{ "path": "testing/sample_1.json", "name": "sample_1", "category": "testing",
        "label": { "type": "multi-label", "labels": [
          { "label": "first_label", "startIndex": 0, "endIndex": 451 },
          { "label": "second_label", "startIndex": 452, "endIndex": 1847 } ] },
        "metadata": {} }]
    }`);
    expect(doc.files[0]?.label).toEqual({
      type: 'multi-label',
      labels: [{ label: 'first_label', startIndex: 0, endIndex: 451 }, { label: 'second_label', startIndex: 452, endIndex: 1847 }],
    });
  });

  it('turns number and boolean metadata into strings, as the platform stores them', () => {
    const doc = parseOne({ path: 'a.cbor', category: 'training', metadata: { n: 3, ok: true, s: 'x' } })();
    expect(doc.files[0]?.metadata).toEqual({ n: '3', ok: 'true', s: 'x' });
  });

  it('reads a plain export (checked by hand, not by the schema) exactly as the schema would: unknown keys dropped, keys in order', () => {
    const doc = parseInfoLabels(JSON.stringify({
      version: 1,
      extra: 'x',
      files: [
        { category: 'testing', path: 'testing/a.cbor', label: { type: 'label', label: 'idle', score: 1 }, metadata: { n: 3, s: 'x' }, name: 'a', other: true },
        { path: 'training/b.cbor', category: 'split', label: { type: 'unlabeled' } },
        { path: 'training/c.cbor', category: 'training' },
      ],
    }));
    expect(doc).toEqual({
      version: 1,
      files: [
        { path: 'testing/a.cbor', name: 'a', category: 'testing', label: { type: 'label', label: 'idle' }, metadata: { n: '3', s: 'x' } },
        { path: 'training/b.cbor', category: 'split', label: { type: 'unlabeled' } },
        { path: 'training/c.cbor', category: 'training' },
      ],
    });
    expect(Object.keys(doc.files[0]!)).toEqual(['path', 'name', 'category', 'label', 'metadata']);
    // Anything less plain goes to the schema, which names what is wrong.
    expect(messageOf(() => parseInfoLabels('{"version":1,"files":[{"path":"a.cbor","category":"nope"}]}'))).toMatch(/files\[0\]\.category/);
    expect(messageOf(() => parseInfoLabels('{"version":1,"files":[{"path":"a.cbor","category":"training","label":{"type":"label","label":""}}]}'))).toMatch(/files\[0\]\.label/);
  });

  it('accepts a byte-order mark and an empty files list', () => {
    expect(parseInfoLabels('\uFEFF{"version":1,"files":[]}')).toEqual({ version: 1, files: [] });
  });

  it('names the entry index and field in errors', () => {
    expect(messageOf(() => parseInfoLabels('{"version":1,'))).toMatch(/info\.labels is not valid JSON/);
    expect(messageOf(() => parseInfoLabels('{"version":2,"files":[]}'))).toMatch(/version: must be 1/);
    expect(messageOf(() => parseInfoLabels('{"version":1}'))).toMatch(/files: .*expected array/);
    expect(messageOf(parseOne({ category: 'training' }))).toMatch(/files\[0\]\.path/);
    expect(messageOf(parseOne({ path: 'a', category: 'train' }))).toMatch(/files\[0\]\.category: .*"training"/);
    expect(messageOf(parseOne({ path: 'a', category: 'training', label: { type: 'labels' } }))).toMatch(/files\[0\]\.label\.type: must be/);
    expect(messageOf(parseOne({ path: 'a', category: 'training', label: { type: 'label' } }))).toMatch(/files\[0\]\.label\.label/);
    expect(messageOf(parseOne({ path: 'a', category: 'training', label: { type: 'label', label: '' } }))).toMatch(/unlabeled/);
    expect(messageOf(parseOne({ path: 'a', category: 'training', metadata: { k: null } }))).toMatch(/files\[0\]\.metadata\.k: must be a string/);
    expect(messageOf(parseOne({ path: 'a', category: 'training', boundingBoxes: [{ label: 'a', x: '1', y: 0, width: 1, height: 1 }] })))
      .toMatch(/files\[0\]\.boundingBoxes\[0\]\.x/);
  });

  it('checks structured label ranges: whole indices, start <= end, no overlap', () => {
    const multi = (labels: unknown[]) => parseOne({ path: 'a', category: 'training', label: { type: 'multi-label', labels } });
    expect(messageOf(multi([]))).toMatch(/labels: must hold at least one range/);
    expect(messageOf(multi([{ label: 'a', startIndex: 1.5, endIndex: 3 }]))).toMatch(/labels\[0\]\.startIndex: must be a whole sample index/);
    expect(messageOf(multi([{ label: 'a', startIndex: -1, endIndex: 3 }]))).toMatch(/labels\[0\]\.startIndex: must not be negative/);
    expect(messageOf(multi([{ label: 'a', startIndex: 5, endIndex: 4 }]))).toMatch(/labels\[0\]\.endIndex: 4 is before startIndex 5/);
    expect(messageOf(multi([{ label: 'a', startIndex: 0, endIndex: 10 }, { label: 'b', startIndex: 10, endIndex: 20 }])))
      .toMatch(/labels\[1\]\.startIndex: 10 overlaps labels\[0\] \(0\.\.10, inclusive\)/);
    // Out of order but disjoint is fine; a single-sample range (start == end) is fine.
    expect(() => multi([{ label: 'b', startIndex: 11, endIndex: 20 }, { label: 'a', startIndex: 0, endIndex: 10 }, { label: 'c', startIndex: 21, endIndex: 21 }])())
      .not.toThrow();
  });

  it('refuses to list the same path twice, naming both entries', () => {
    const twice = [entries[0] as InfoLabelsEntry, { path: 'x.cbor', category: 'training' as const }, entries[0] as InfoLabelsEntry];
    expect(messageOf(() => buildInfoLabels(twice))).toMatch(/Cannot write info\.labels: files\[2\]\.path: .*already listed as files\[0\]/);
  });
});
