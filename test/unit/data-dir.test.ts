import { describe, expect, it } from 'vitest';
import { defaultDataDir } from '../../src-main/core/data-dir.js';

describe('defaultDataDir', () => {
  it("matches Electron's userData folder on each OS", () => {
    expect(defaultDataDir('linux', {}, '/home/ana')).toBe('/home/ana/.config/Capture Desk');
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/x' }, '/home/ana')).toBe('/x/Capture Desk');
    expect(defaultDataDir('darwin', {}, '/Users/ana')).toBe('/Users/ana/Library/Application Support/Capture Desk');
    expect(defaultDataDir('win32', { APPDATA: 'C:/Users/ana/AppData/Roaming' }, 'C:/Users/ana')).toMatch(/Roaming.Capture Desk$/);
  });
});
