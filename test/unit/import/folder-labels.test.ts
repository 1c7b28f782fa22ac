import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildBoundingBoxesLabels, parseBoundingBoxesLabels } from '../../../src-main/core/samples/formats/bounding-boxes-labels.js';
import { readFolderLabels } from '../../../src-main/core/import/folder-labels.js';

const box = { label: 'cat', x: 1, y: 2, width: 3, height: 4 };

describe('bounding_boxes.labels', () => {
  it('round-trips the platform format', () => {
    const text = buildBoundingBoxesLabels(new Map([['a.jpg', [box]]]));
    expect(JSON.parse(text)).toEqual({ version: 1, type: 'bounding-box-labels', boundingBoxes: { 'a.jpg': [box] } });
    expect(parseBoundingBoxesLabels(text).boundingBoxes).toEqual({ 'a.jpg': [box] });
  });
  it('names what is wrong, with the service rules for boxes', () => {
    const bad = (doc: unknown) => () => parseBoundingBoxesLabels(JSON.stringify(doc));
    expect(bad({ version: 2, type: 'bounding-box-labels', boundingBoxes: {} })).toThrow('version must be 1');
    expect(bad({ version: 1, boundingBoxes: {} })).toThrow('type must be "bounding-box-labels"');
    expect(bad({ version: 1, type: 'bounding-box-labels', boundingBoxes: [] })).toThrow('boundingBoxes must be an object');
    expect(bad({ version: 1, type: 'bounding-box-labels', boundingBoxes: { 'a.jpg': [{ ...box, height: '4' }] } })).toThrow('boundingBoxes "a.jpg": height is required');
    expect(() => parseBoundingBoxesLabels('{')).toThrow('not valid JSON');
  });
});

describe('readFolderLabels', () => {
  it('lets the nearest info.labels describe a file and bounding_boxes.labels give the boxes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-folder-labels-'));
    await mkdir(join(root, 'training'));
    const img = join(root, 'training', 'a.1.png');
    const rootInfo = { version: 1, files: [{ path: 'training/a.1.png', category: 'testing', label: { type: 'label', label: 'far' }, boundingBoxes: [{ ...box, label: 'info' }] }] };
    const nearInfo = { version: 1, files: [{ path: 'a.1.png', category: 'training', label: { type: 'label', label: ' near ' } }] };
    await writeFile(join(root, 'info.labels'), JSON.stringify(rootInfo));
    await writeFile(join(root, 'training', 'info.labels'), JSON.stringify(nearInfo));
    await writeFile(join(root, 'training', 'bounding_boxes.labels'), buildBoundingBoxesLabels(new Map([['a.1.png', [box]]])));
    const got = await readFolderLabels([img], [join(root, 'info.labels'), join(root, 'training', 'info.labels'), join(root, 'training', 'bounding_boxes.labels')]);
    // Trimmed: the label travels in an x-label header, which carries no outer white space.
    expect(got.byFile.get(img)).toEqual({ category: 'training', label: 'near', boundingBoxes: [box] });
    expect(got.refused.size).toBe(0);
    const near = got.reports.find((r) => r.path === join(root, 'training', 'info.labels'))!;
    expect(near).toMatchObject({ labels: 1, categories: 1 });
    expect(got.reports.find((r) => r.path === join(root, 'training', 'bounding_boxes.labels'))).toMatchObject({ boxes: 1 });
  });
});
