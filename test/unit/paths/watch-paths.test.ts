import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LINUX_PATHS, MAC_PATHS, WINDOWS_PATHS } from '../../../src-main/core/fs/path-flavor.js';
import { checkOverlap } from '../../../src-main/core/watch/folder-checks.js';
import type { WatchedFolder } from '../../../src-main/core/contract/watch-schema.js';
import { WatchedFolderInput } from '../../../src-main/core/contract/watch-schema.js';
import { isIgnoredUnder, isSampleFileName } from '../../../src-main/core/watch/watch-filter.js';

const file = { isFile: () => true } as Stats;

function folder(path: string): WatchedFolder {
  return { id: path, path, category: 'training', label: { mode: 'filename' }, metadata: {}, enabled: true };
}

/** checkOverlap with each path standing for its own realpath (as when the folder is gone). */
function overlap(path: string, dataDir: string, watched: string[], flavor = WINDOWS_PATHS): void {
  checkOverlap(path, path, dataDir, dataDir, watched.map((w) => ({ folder: folder(w), real: w })), flavor);
}

describe('watched folders with Windows paths', () => {
  it('judges files below a drive, UNC or trailing-separator root', () => {
    for (const root of ['C:\\Data\\captures', 'C:\\Data\\captures\\', '\\\\lab-nas\\share\\captures', 'E:\\']) {
      const base = root.replace(/\\$/, '');
      expect(isIgnoredUnder(root, root, undefined, WINDOWS_PATHS), root).toBe(false);
      expect(isIgnoredUnder(root, `${base}\\run 1\\idle.01.CBOR`, file, WINDOWS_PATHS), root).toBe(false);
      expect(isIgnoredUnder(root, `${base}\\run 1\\notes.txt`, file, WINDOWS_PATHS), root).toBe(true);
      expect(isIgnoredUnder(root, `${base}\\.git\\idle.csv`, file, WINDOWS_PATHS), root).toBe(true);
      expect(isIgnoredUnder(root, `${base}\\run 1\\~$sheet.csv`, file, WINDOWS_PATHS), root).toBe(true);
      expect(isIgnoredUnder(root, `${base}\\run 1\\door knock.02.WAV`, file, WINDOWS_PATHS), root).toBe(false);
    }
  });

  it('is not fooled by the case a watcher reports a path in, or by forward slashes', () => {
    expect(isIgnoredUnder('C:\\Data', 'c:\\data\\run\\idle.cbor', file, WINDOWS_PATHS)).toBe(false);
    expect(isIgnoredUnder('C:\\Data', 'C:/Data/run/.hidden/idle.cbor', file, WINDOWS_PATHS)).toBe(true);
  });

  it("skips a drive's recycle bin and system folders, and Safari's download folders", () => {
    expect(isIgnoredUnder('E:\\', 'E:\\$RECYCLE.BIN\\S-1-5-21\\$R3KQ2.cbor', file, WINDOWS_PATHS)).toBe(true);
    expect(isIgnoredUnder('E:\\', 'E:\\$Recycle.Bin', undefined, WINDOWS_PATHS)).toBe(true);
    expect(isIgnoredUnder('E:\\', 'E:\\System Volume Information', undefined, WINDOWS_PATHS)).toBe(true);
    expect(isIgnoredUnder('/Users/ana/Downloads', '/Users/ana/Downloads/idle.01.cbor.download/idle.01.cbor', file, MAC_PATHS)).toBe(true);
    expect(isIgnoredUnder('/Users/ana/Downloads', '/Users/ana/Downloads/._idle.01.cbor', file, MAC_PATHS)).toBe(true);
    expect(isIgnoredUnder('/Users/ana/Downloads', '/Users/ana/Downloads/idle.01.cbor', file, MAC_PATHS)).toBe(false);
    expect(isSampleFileName('desktop.ini')).toBe(false);
    expect(isSampleFileName('Thumbs.db')).toBe(false);
  });

  it('on Linux a backslash is part of a name, not a folder', () => {
    // '\.x' would be a hidden folder on Windows; on Linux it is one (odd) file name.
    expect(isIgnoredUnder('/data', '/data/run\\.x.cbor', file, LINUX_PATHS)).toBe(false);
    expect(isIgnoredUnder('C:\\data', 'C:\\data\\run\\.x.cbor', file, WINDOWS_PATHS)).toBe(true);
  });

  it('refuses one folder spelled twice, a subfolder, or a parent, however it is cased', () => {
    const data = 'C:\\Users\\ana\\AppData\\Roaming\\Capture Desk';
    expect(() => overlap('c:\\data\\', data, ['C:\\Data'])).toThrow(/already watched/);
    expect(() => overlap('C:\\DATA\\run 1', data, ['C:\\Data'])).toThrow(/inside the watched folder C:\\Data/);
    expect(() => overlap('d:\\', data, ['D:\\Data'])).toThrow(/holds the watched folder/);
    expect(() => overlap('\\\\NAS\\share\\x', data, ['\\\\nas\\share'])).toThrow(/inside the watched folder/);
    expect(() => overlap('c:\\users\\ana\\appdata\\roaming', data, [])).toThrow(/data folder/);
    // Negative controls: neighbours and other drives are fine.
    expect(() => overlap('C:\\Data2', data, ['C:\\Data'])).not.toThrow();
    expect(() => overlap('D:\\Data', data, ['C:\\Data'])).not.toThrow();
    expect(() => overlap('\\\\nas\\other', data, ['\\\\nas\\share'])).not.toThrow();
  });

  it('on Linux, folders that differ in case are different folders', () => {
    expect(() => overlap('/data/Run', '/home/ana/.config/Capture Desk', ['/data/run'], LINUX_PATHS)).not.toThrow();
    expect(() => overlap('/Volumes/Lab/Run', '/Users/ana/Library/Application Support/Capture Desk', ['/Volumes/Lab/run'], MAC_PATHS)).toThrow(/already watched/);
  });

  it('accepts Windows and UNC folders in the shared schema', () => {
    for (const ok of ['C:\\captures', 'c:/captures', '\\\\lab-nas\\share\\captures', '/Users/ana/captures']) {
      expect(WatchedFolderInput.safeParse({ path: ok, category: 'training', label: { mode: 'filename' } }).success, ok).toBe(true);
    }
    for (const no of ['captures', '.\\captures', 'C:captures']) {
      expect(WatchedFolderInput.safeParse({ path: no, category: 'training', label: { mode: 'filename' } }).success, no).toBe(false);
    }
  });
});
