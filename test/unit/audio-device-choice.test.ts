import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAudioChoice, resolveDevice, saveAudioChoice } from '../../src-main/core/audio/device-choice.js';
import { silentLogger } from '../../src-main/core/log.js';

const DEVICES = [
  { id: 'default', name: 'System default input', default: true },
  { id: '111', name: 'USB mic', default: false },
  { id: '222', name: 'Headset', default: false },
];
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audio-choice-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('remembered audio device', () => {
  it('is saved in the data directory and read back', async () => {
    expect(await loadAudioChoice(dir, silentLogger)).toBeNull();
    await saveAudioChoice(dir, { deviceId: '111', name: 'USB mic', sampleRate: 16_000 });
    expect(await loadAudioChoice(dir, silentLogger)).toEqual({ deviceId: '111', name: 'USB mic', sampleRate: 16_000 });
    expect(JSON.parse(await readFile(join(dir, 'audio-device.json'), 'utf8')).deviceId).toBe('111');
  });

  it('ignores a damaged file instead of failing', async () => {
    await writeFile(join(dir, 'audio-device.json'), '{"deviceId": 5');
    expect(await loadAudioChoice(dir, silentLogger)).toBeNull();
  });

  it('is found by id, else by name (its id changed), else the default is used with a note', () => {
    expect(resolveDevice(DEVICES, { deviceId: '222', name: 'Headset' })).toEqual({ device: DEVICES[2], note: null });
    const renamed = resolveDevice(DEVICES, { deviceId: '999', name: 'USB mic' });
    expect(renamed?.device.id).toBe('111');
    expect(renamed?.note).toMatch(/new id/);
    const gone = resolveDevice(DEVICES, { deviceId: '999', name: 'Old mic' });
    expect(gone?.device.id).toBe('default');
    expect(gone?.note).toMatch(/not connected/);
    expect(resolveDevice(DEVICES, null)).toEqual({ device: DEVICES[0], note: null });
    expect(resolveDevice([], null)).toBeNull();
  });
});
