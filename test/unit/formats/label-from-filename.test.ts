import { describe, it, expect } from 'vitest';
import { CoreError } from '../../../src-main/core/errors.js';
import {
  ACCEPTED_EXTENSIONS, contentTypeFor, deriveLabel, extensionOf, fileKind,
} from '../../../src-main/core/samples/formats/label-from-filename.js';

describe('deriveLabel (leading match of letters, digits, whitespace, - and _)', () => {
  it.each([
    ['idle.01.cbor', 'idle'],
    ['idle.cbor', 'idle'],
    ['wave-left_3.wav', 'wave-left_3'],
    ['wave left.2.json', 'wave left'],
    ['snake_case-and-kebab 9.csv', 'snake_case-and-kebab 9'],
    ['UPPER.lower.png', 'UPPER'],
    ['12345.jpg', '12345'],
    ['no-extension', 'no-extension'],
    ['tab\there.wav', 'tab\there'],
    ['a+b.wav', 'a'], // '+' stops the match
    ['0.5.csv', '0'], // why float-valued labels need x-label or info.labels
    ['émile.wav', null], // non-ASCII letters are not in the class
    ['.hidden.cbor', null],
    ['(1).wav', null],
    ['', null],
    ['data/training/idle.01.cbor', 'idle'], // the service only sees the base name
    ['C:\\rec\\wave.3.wav', 'wave'],
  ])('%j gives %j', (name, label) => {
    expect(deriveLabel(name)).toBe(label);
  });

  it('does not treat the spec\'s [\\s-_] as a character range', () => {
    // As a range from whitespace to '_' (0x5F) it would also take '.', '/', ':', '@' and digits-to-upper.
    for (const c of ['.', ',', ':', '@', '[', '^', '=', '+', '#']) expect(deriveLabel(`a${c}b.wav`)).toBe('a');
  });
});

describe('fileKind and contentTypeFor (the spec\'s extension table)', () => {
  it.each([
    ['a.json', 'sensor', 'application/json'],
    ['a.cbor', 'sensor', 'application/cbor'],
    ['a.csv', 'sensor', 'text/csv'],
    ['a.parquet', 'sensor', 'application/vnd.apache.parquet'],
    ['a.wav', 'audio', 'audio/wav'],
    ['a.jpg', 'image', 'image/jpeg'],
    ['a.jpeg', 'image', 'image/jpeg'],
    ['A.PNG', 'image', 'image/png'],
    ['a.mp4', 'video', 'video/mp4'],
    ['a.avi', 'video', 'video/x-msvideo'],
    ['info.labels', 'labels', 'application/json'],
    ['bounding_boxes.labels', 'labels', 'application/json'],
  ])('%s is %s, sent as %s', (name, kind, type) => {
    expect(fileKind(name)).toBe(kind);
    expect(contentTypeFor(name)).toBe(type);
  });

  it.each(['a.txt', 'a.mp3', 'a.wav.bak', 'README', 'dir.wav/file', 'a.'])('%s is not accepted', (name) => {
    expect(fileKind(name)).toBeNull();
    expect(() => contentTypeFor(name)).toThrow(CoreError);
  });

  it('says which extensions would be accepted', () => {
    expect(() => contentTypeFor('notes/a.txt')).toThrow(/a\.txt: the platform does not accept files with \.txt; use one of \.json .* \.labels/);
    expect(() => contentTypeFor('Makefile')).toThrow(/with no extension/);
    expect(ACCEPTED_EXTENSIONS).toHaveLength(11);
  });

  it('extensionOf looks at the base name only', () => {
    expect(extensionOf('my.dir/file')).toBe('');
    expect(extensionOf('x/y.tar.CBOR')).toBe('.cbor');
  });
});
