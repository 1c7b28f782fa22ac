import { DEMO_SOURCE_ID, type MethodInput, type MethodName } from '../../src-main/core/contract.js';

/**
 * One valid input per contract method. Typed as a complete record, so a method added to the
 * contract without a sample here fails to compile, and the "every method through every binding"
 * tests keep covering the whole contract.
 */
export const sampleInputs: { [M in MethodName]: MethodInput<M> } = {
  'app.info': {},
  'settings.get': {},
  'settings.set': { deviceName: 'bench-01' },
  'serial.listPorts': {},
  'sources.list': {},
  'stream.start': { sourceId: DEMO_SOURCE_ID, rateHz: 200 },
  'stream.stop': { sourceId: DEMO_SOURCE_ID },
};
