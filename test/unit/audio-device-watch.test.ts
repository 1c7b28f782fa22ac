import { describe, expect, it } from 'vitest';
import { DeviceWatch, type DeviceChange } from '../../src-main/core/audio/device-watch.js';
import type { AudioDevice } from '../../src-main/core/audio/worker-protocol.js';

const silent = { info() {}, warn() {}, error() {} };
const MICS: AudioDevice[] = [{ id: 'default', name: 'System default input', default: true }, { id: 'm1', name: 'Mic', default: false }];

// A watcher whose first list failed (a stuck sound system, issue 30) must still hear of the
// devices once a later list reads them, in whichever order the two answers come.
describe('a device watch whose first list failed', () => {
  it('gets the first list read after the failure', async () => {
    const seen: DeviceChange[] = [];
    const w = new DeviceWatch(() => Promise.reject(new Error('stuck')), silent, 60_000);
    w.watch((c) => seen.push(c));
    await new Promise((r) => setTimeout(r, 10));
    w.note(MICS);
    expect(seen).toEqual([{ devices: MICS, added: MICS, removed: [] }]);
    w.close();
  });

  it('gets a list read while the failing one was still stuck', async () => {
    const seen: DeviceChange[] = [];
    let fail: (e: Error) => void = () => undefined;
    const w = new DeviceWatch(() => new Promise((_, reject) => (fail = reject)), silent, 60_000);
    w.watch((c) => seen.push(c));
    w.note(MICS); // a poll through another process answered first
    fail(new Error('stuck'));
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([{ devices: MICS, added: [], removed: [] }]);
    w.close();
  });
});
