import { describe, expect, it } from 'vitest';
import { deviceWords } from '../../../src-renderer/lib/capture/device-words.js';

describe('a device list entry in words', () => {
  it('names a board by its USB id and says what its stream says while it streams', () => {
    const nano = { id: 'serial:/dev/ttyACM0', kind: 'serial' as const, name: 'Arduino (/dev/ttyACM0)', detail: 'S/N ABC123', streaming: true, board: 'Arduino Nano 33 BLE', stream: { axes: 3, rateHz: 100.004 } };
    expect(deviceWords(nano)).toEqual({ name: 'Arduino Nano 33 BLE · 3 axes · 100 Hz', detail: 'Arduino (/dev/ttyACM0) · S/N ABC123' });
    const { stream: _s, ...idle } = nano;
    expect(deviceWords({ ...idle, streaming: false }).name).toBe('Arduino Nano 33 BLE');
    expect(deviceWords({ ...nano, stream: { axes: 3, rateHz: null } }).name).toBe('Arduino Nano 33 BLE · 3 axes · measuring its rate');
    // The baud rate the port is read at, found (Auto) or set, comes first.
    expect(deviceWords({ ...nano, stream: { axes: 3, rateHz: 100, baud: 57_600 } }).name).toBe('Arduino Nano 33 BLE · 57600 · 3 axes · 100 Hz');
  });

  it('keeps the system\'s name for a port with no known id, and says one axis as one', () => {
    const pty = { id: 'serial:/dev/pts/3', kind: 'serial' as const, name: '/dev/pts/3 (added by path)', detail: '/dev/pts/3', streaming: true, stream: { axes: 1, rateHz: 62.5 } };
    expect(deviceWords(pty)).toEqual({ name: '/dev/pts/3 (added by path) · 1 axis · 62.5 Hz', detail: '/dev/pts/3' });
    expect(deviceWords({ id: 'audio:default', kind: 'audio', name: 'Default input', detail: 'system default', streaming: false })).toEqual({ name: 'Default input', detail: 'system default' });
  });
});
