import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src-renderer/lib/api/client.js';
import { detectAtBoard, silentPort } from '../../../src-renderer/lib/capture/at-detect.js';
import { fakeApi } from '../../support/renderer/fake-api.js';

const silent = new ApiError({ code: 'Unavailable', message: 'No numeric lines from /dev/ttyACM0 within 5 s: nothing readable arrived.', details: { path: '/dev/ttyACM0', silent: true } });

describe('a silent port asked whether it runs the platform firmware (AT)', () => {
  it('tells a silent opening from other failures', () => {
    expect(silentPort(silent)).toBe(true);
    expect(silentPort(new ApiError({ code: 'Unavailable', message: 'x', details: { silent: false } }))).toBe(false);
    expect(silentPort(new ApiError({ code: 'Unavailable', message: 'x' }))).toBe(false);
    expect(silentPort(new Error('x'))).toBe(false);
  });

  it('a board that answers: its port is set to AT mode (remembered by the core), and its type said', async () => {
    const { api, calls } = fakeApi({
      'at.readBoard': () => ({ deviceId: 'a', deviceType: 'SIMULATED_AT_BOARD', atVersion: '1.6.0', transferBaudRate: null, sensors: [] }),
      'serial.setSettings': () => ({}),
    });
    expect(await detectAtBoard(api, '/dev/ttyACM0', silent)).toEqual({ switched: true, deviceType: 'SIMULATED_AT_BOARD' });
    expect(calls).toEqual([
      { method: 'at.readBoard', input: { path: '/dev/ttyACM0' } },
      { method: 'serial.setSettings', input: { path: '/dev/ttyACM0', settings: { mode: 'at' } } },
    ]);
  });

  it('a board that does not: both are said, the port left as it was', async () => {
    const { api, calls } = fakeApi({ 'at.readBoard': () => { throw new Error('no answer to AT+HELP within 2 s'); } });
    const r = await detectAtBoard(api, '/dev/ttyACM0', silent);
    expect(r.switched).toBe(false);
    expect(!r.switched && r.error.message).toBe('No numeric lines from /dev/ttyACM0 within 5 s: nothing readable arrived. Nor did it answer as the platform\'s firmware (AT): no answer to AT+HELP within 2 s');
    expect(calls.map((c) => c.method)).toEqual(['at.readBoard']);
  });
});
