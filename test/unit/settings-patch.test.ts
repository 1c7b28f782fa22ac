import { describe, expect, it } from 'vitest';
import { methods } from '../../src-main/core/contract/contract.js';

describe('settings.set input', () => {
  it('a patch carries only what it names: no field is filled in with a default that would overwrite the saved value', () => {
    expect(methods['settings.set'].input.parse({ deviceName: 'bench' })).toEqual({ deviceName: 'bench' });
    expect(methods['settings.set'].input.parse({ remoteMgmtUrl: 'ws://10.0.0.2:4802' })).toEqual({ remoteMgmtUrl: 'ws://10.0.0.2:4802' });
    expect(methods['settings.set'].input.parse({})).toEqual({});
  });
});
