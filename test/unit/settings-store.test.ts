import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src-main/core/log.js';
import { DEFAULT_SETTINGS, SettingsStore } from '../../src-main/core/settings/settings-store.js';

const tmp = () => mkdtemp(join(tmpdir(), 'cd-settings-'));

describe('SettingsStore', () => {
  it('starts with defaults and persists changes across reopen', async () => {
    const dir = await tmp();
    const a = await SettingsStore.open(dir, silentLogger);
    expect(a.get()).toEqual(DEFAULT_SETTINGS);
    await a.set({ projectId: 42, ingestionUrl: 'http://127.0.0.1:9999' });
    const b = await SettingsStore.open(dir, silentLogger);
    expect(b.get()).toMatchObject({ projectId: 42, ingestionUrl: 'http://127.0.0.1:9999', deviceName: DEFAULT_SETTINGS.deviceName });
    // Only the final file is left: the atomic write cleaned up its temp file.
    expect(await readdir(dir)).toEqual(['settings.json']);
  });

  it('refuses invalid values with a message naming the field, and keeps the old ones', async () => {
    const dir = await tmp();
    const s = await SettingsStore.open(dir, silentLogger);
    await expect(s.set({ managementUrl: 'not a url' })).rejects.toThrow(/managementUrl/);
    expect(s.get().managementUrl).toBe(DEFAULT_SETTINGS.managementUrl);
  });

  it('keeps the valid fields of a damaged file and a copy of the damaged file', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'settings.json'), JSON.stringify({ projectId: 7, ingestionUrl: 12 }));
    const s = await SettingsStore.open(dir, silentLogger);
    expect(s.get().projectId).toBe(7);
    expect(s.get().ingestionUrl).toBe(DEFAULT_SETTINGS.ingestionUrl);
    const aside = (await readdir(dir)).find((f) => f.startsWith('settings.json.broken-'));
    expect(aside).toBeDefined();
    expect(await readFile(join(dir, aside!), 'utf8')).toContain('"ingestionUrl":12');
  });

  it('survives a file that is not JSON at all', async () => {
    const dir = await tmp();
    await writeFile(join(dir, 'settings.json'), '{{{ half written');
    const s = await SettingsStore.open(dir, silentLogger);
    expect(s.get()).toEqual(DEFAULT_SETTINGS);
  });
});
