import { describe, it, expect } from 'vitest';
import { checkBoundingBoxList, validateBoundingBoxes } from '../../../src-main/core/samples/formats/bounding-boxes.js';

const box = { label: 'cup', x: 10, y: 20, width: 30, height: 40 };
const withBox = (patch: Record<string, unknown>, drop?: string) => {
  const b: Record<string, unknown> = { ...box, ...patch };
  if (drop) delete b[drop];
  return JSON.stringify([b]);
};

describe('validateBoundingBoxes: the service texts, exactly', () => {
  it('accepts well-formed boxes (and an empty list), keeping only the five fields', () => {
    expect(validateBoundingBoxes(JSON.stringify([box, { ...box, label: '', x: 0.5, extra: 1 }]))).toEqual({
      ok: true, boxes: [box, { label: '', x: 0.5, y: 20, width: 30, height: 40 }],
    });
    expect(validateBoundingBoxes('[]')).toEqual({ ok: true, boxes: [] });
  });

  it.each([
    ['', 'x-bounding-boxes is not valid json'],
    ['[{label:"a"}]', 'x-bounding-boxes is not valid json'],
    ['[', 'x-bounding-boxes is not valid json'],
    ['{}', 'x-bounding-boxes is not a valid array'],
    ['null', 'x-bounding-boxes is not a valid array'],
    ['"[]"', 'x-bounding-boxes is not a valid array'],
    [JSON.stringify(box), 'x-bounding-boxes is not a valid array'],
  ])('%j gives %j', (header, error) => {
    expect(validateBoundingBoxes(header)).toEqual({ ok: false, error });
  });

  it.each(['label', 'x', 'y', 'width', 'height'])('a missing %s is reported by name', (prop) => {
    expect(validateBoundingBoxes(withBox({}, prop))).toEqual({ ok: false, error: `x-bounding-boxes ${prop} is required` });
  });

  it.each([
    [{ x: '10' }, 'x'],
    [{ y: null }, 'y'],
    [{ width: true }, 'width'],
    [{ height: [1] }, 'height'],
    [{ label: 5 }, 'label'],
  ])('a wrongly typed property %j counts as missing', (patch, prop) => {
    expect(validateBoundingBoxes(withBox(patch))).toEqual({ ok: false, error: `x-bounding-boxes ${prop} is required` });
  });

  it('a number too large for a double (1e999 parses to Infinity) counts as missing', () => {
    const header = withBox({}).replace('"width":30', '"width":1e999');
    expect(header).toContain('1e999');
    expect(validateBoundingBoxes(header)).toEqual({ ok: false, error: 'x-bounding-boxes width is required' });
  });

  it('checks properties in the order label, x, y, width, height', () => {
    expect(validateBoundingBoxes('[{"height":"1","width":"1","y":"1","x":"1","label":1}]'))
      .toEqual({ ok: false, error: 'x-bounding-boxes label is required' });
    expect(validateBoundingBoxes('[{"label":"a","height":"1","width":"1","y":"1"}]')).toEqual({ ok: false, error: 'x-bounding-boxes x is required' });
    expect(validateBoundingBoxes('[{"label":"a","x":1,"height":"1","width":"1"}]')).toEqual({ ok: false, error: 'x-bounding-boxes y is required' });
    expect(validateBoundingBoxes('[{"label":"a","x":1,"y":2}]')).toEqual({ ok: false, error: 'x-bounding-boxes width is required' });
  });

  it('reports the first bad element; non-objects lack every property, so label comes first', () => {
    expect(validateBoundingBoxes(JSON.stringify([box, { ...box, y: '2' }, { label: 1 }]))).toEqual({ ok: false, error: 'x-bounding-boxes y is required' });
    expect(validateBoundingBoxes('[5]')).toEqual({ ok: false, error: 'x-bounding-boxes label is required' });
    expect(validateBoundingBoxes('[null]')).toEqual({ ok: false, error: 'x-bounding-boxes label is required' });
    expect(validateBoundingBoxes('[[1,2,3,4,5]]')).toEqual({ ok: false, error: 'x-bounding-boxes label is required' });
  });

  it('checkBoundingBoxList uses the given source in its texts', () => {
    expect(checkBoundingBoxList({}, 'info.labels boundingBoxes')).toEqual({ ok: false, error: 'info.labels boundingBoxes is not a valid array' });
    expect(checkBoundingBoxList([{}])).toEqual({ ok: false, error: 'x-bounding-boxes label is required' });
  });
});
