import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../src-main/core/data-dir.js';

describe('defaultDataDir', () => {
  it("matches Electron's userData folder on Linux (XDG)", () => {
    expect(defaultDataDir('linux', {}, '/home/ana')).toBe('/home/ana/.config/Capture Desk');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/x' }, '/home/ana')).toBe('/x/Capture Desk');
    // The XDG spec: an empty or relative value counts as unset.
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '' }, '/home/ana')).toBe('/home/ana/.config/Capture Desk');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: 'conf' }, '/home/ana')).toBe('/home/ana/.config/Capture Desk');
  });

  it('matches it on macOS', () => {
    expect(defaultDataDir('darwin', {}, '/Users/ana')).toBe('/Users/ana/Library/Application Support/Capture Desk');
    // XDG variables mean nothing to Electron on a Mac.
    expect(defaultDataDir('darwin', { XDG_CONFIG_HOME: '/x' }, '/Users/ana')).toBe('/Users/ana/Library/Application Support/Capture Desk');
  });

  it('matches it on Windows, in Windows spelling', () => {
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\ana\\AppData\\Roaming' }, 'C:\\Users\\ana')).toBe('C:\\Users\\ana\\AppData\\Roaming\\Capture Desk');
    // Without APPDATA (a service account, a stripped environment) Windows' own default is used.
    expect(defaultDataDir('win32', {}, 'C:\\Users\\ana')).toBe('C:\\Users\\ana\\AppData\\Roaming\\Capture Desk');
    expect(defaultDataDir('win32', { APPDATA: '' }, 'C:\\Users\\ana')).toBe('C:\\Users\\ana\\AppData\\Roaming\\Capture Desk');
    // A roaming profile on a server share.
    expect(defaultDataDir('win32', { APPDATA: '\\\\fs01\\profiles$\\ana\\AppData\\Roaming' }, 'C:\\Users\\ana')).toBe('\\\\fs01\\profiles$\\ana\\AppData\\Roaming\\Capture Desk');
    // Forward slashes from a Git Bash or MSYS environment are normalized.
    expect(defaultDataDir('win32', { APPDATA: 'C:/Users/ana/AppData/Roaming' }, 'C:\\Users\\ana')).toBe('C:\\Users\\ana\\AppData\\Roaming\\Capture Desk');
  });

  it('takes the path module to use, for callers that need another spelling', () => {
    expect(defaultDataDir('win32', {}, 'C:/Users/ana', path.posix)).toBe('C:/Users/ana/AppData/Roaming/Capture Desk');
  });
});
