import { describe, expect, it } from 'vitest';
import { canonicalFolder, isInside, LINUX_PATHS, MAC_PATHS, pathFlavor, samePath, splitPath, WINDOWS_PATHS } from '../../../src-main/core/fs/path-flavor.js';

describe('path flavors', () => {
  it('picks the flavor of each OS', () => {
    expect(pathFlavor('win32')).toBe(WINDOWS_PATHS);
    expect(pathFlavor('darwin')).toBe(MAC_PATHS);
    expect(pathFlavor('linux')).toBe(LINUX_PATHS);
  });

  it('compares Windows paths without regard to case, slash direction or a trailing separator', () => {
    expect(samePath('C:\\Data\\', 'c:\\data', WINDOWS_PATHS)).toBe(true);
    expect(samePath('C:/Data/captures', 'c:\\DATA\\Captures\\', WINDOWS_PATHS)).toBe(true);
    expect(samePath('\\\\lab-nas\\share\\run1\\', '\\\\LAB-NAS\\Share\\Run1', WINDOWS_PATHS)).toBe(true);
    expect(samePath('C:\\Data', 'D:\\Data', WINDOWS_PATHS)).toBe(false);
    // Negative control: Linux keeps case apart.
    expect(samePath('/data/Run', '/data/run', LINUX_PATHS)).toBe(false);
    expect(samePath('/Users/ana/Captures', '/users/ana/captures/', MAC_PATHS)).toBe(true);
  });

  it('matches decomposed macOS names with composed ones', () => {
    expect(samePath('/Users/ana/Me\u0301ssungen', '/Users/ana/M\u00e9ssungen', MAC_PATHS)).toBe(true);
  });

  it('tells a subfolder from a sibling, another drive or another share', () => {
    expect(isInside('C:\\Data', 'c:\\data\\run 1', WINDOWS_PATHS)).toBe(true);
    expect(isInside('C:\\Data\\', 'C:\\Data', WINDOWS_PATHS)).toBe(false);
    expect(isInside('C:\\Data', 'C:\\Data2\\x', WINDOWS_PATHS)).toBe(false);
    expect(isInside('C:\\Data', 'D:\\Data\\x', WINDOWS_PATHS)).toBe(false);
    expect(isInside('\\\\nas\\share', '\\\\NAS\\share\\run1', WINDOWS_PATHS)).toBe(true);
    expect(isInside('\\\\nas\\share', '\\\\nas\\other\\run1', WINDOWS_PATHS)).toBe(false);
    expect(isInside('C:\\Data', 'C:\\Data\\..folder', WINDOWS_PATHS)).toBe(true);
    expect(isInside('/home/me', '/home/me/x', LINUX_PATHS)).toBe(true);
    expect(isInside('/home/me', '/home/Me/x', LINUX_PATHS)).toBe(false);
    expect(isInside('/Users/me', '/Users/ME/x', MAC_PATHS)).toBe(true);
  });

  it('splits on both slashes on Windows, only on "/" elsewhere', () => {
    expect(splitPath('run 1\\sub/idle.cbor', WINDOWS_PATHS)).toEqual(['run 1', 'sub', 'idle.cbor']);
    // A backslash is an ordinary character in a Linux or macOS file name.
    expect(splitPath('run 1/odd\\name.cbor', LINUX_PATHS)).toEqual(['run 1', 'odd\\name.cbor']);
  });

  it('keeps one spelling per chosen folder', () => {
    expect(canonicalFolder('c:\\data\\', WINDOWS_PATHS)).toBe('C:\\data');
    expect(canonicalFolder('c:/data/run/../captures/', WINDOWS_PATHS)).toBe('C:\\data\\captures');
    expect(canonicalFolder('\\\\nas\\share\\x\\', WINDOWS_PATHS)).toBe('\\\\nas\\share\\x');
    expect(canonicalFolder('/Users/ana/captures/', MAC_PATHS)).toBe('/Users/ana/captures');
  });
});
