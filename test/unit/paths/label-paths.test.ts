import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentTypeFor, deriveLabel, extensionOf, fileKind } from '../../../src-main/core/samples/formats/label-from-filename.js';
import { isSampleFileName } from '../../../src-main/core/watch/watch-filter.js';

describe('labels and types from Windows and macOS paths', () => {
  it('derives the label from the base name whichever separator the path uses', () => {
    const cases: Array<[string, string]> = [
      ['C:\\captures\\idle.01.cbor', 'idle'],
      ['\\\\server\\share\\x\\door knock.02.wav', 'door knock'],
      ['C:/captures\\run 2/wave-left_3.WAV', 'wave-left_3'],
      ['D:\\Lab Data\\2024.05\\knock.v2.final.CBOR', 'knock'],
      ['/Users/ana/Library/Mobile Documents/idle.01.cbor', 'idle'],
      ['idle.01.cbor', 'idle'],
    ];
    for (const [p, label] of cases) expect(deriveLabel(p), p).toBe(label);
    // A folder name that would give a label must not leak in when the file's own name gives none.
    expect(deriveLabel('C:\\captures\\idle\\.01.cbor')).toBeNull();
  });

  it('gives the same answer as the OS path module for the base name', () => {
    for (const p of ['C:\\captures\\idle.01.cbor', '\\\\server\\share\\x\\door knock.02.wav']) {
      expect(deriveLabel(p)).toBe(deriveLabel(path.win32.basename(p)));
    }
    expect(deriveLabel('/Users/ana/idle.01.cbor')).toBe(deriveLabel(path.posix.basename('/Users/ana/idle.01.cbor')));
  });

  it('reads upper-case extensions as the platform types they are', () => {
    expect(extensionOf('C:\\captures\\DOOR.02.WAV')).toBe('.wav');
    expect(fileKind('C:\\captures\\IDLE.01.CBOR')).toBe('sensor');
    expect(fileKind('\\\\nas\\photos\\CAT.JPEG')).toBe('image');
    expect(contentTypeFor('E:\\rec\\A.WAV')).toBe('audio/wav');
    expect(isSampleFileName('IDLE.01.CBOR')).toBe(true);
    expect(isSampleFileName('IDLE.01.CBOR.PART')).toBe(false);
    // A dot in a folder name is not the file's extension.
    expect(extensionOf('C:\\v1.2\\README')).toBe('');
  });

  it('names only the file, not the whole Windows path, when it refuses one', () => {
    expect(() => contentTypeFor('C:\\captures\\notes.txt')).toThrow(/^notes\.txt: /);
  });
});
