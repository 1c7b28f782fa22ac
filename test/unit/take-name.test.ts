import { describe, expect, it } from 'vitest';
import { takeName } from '../../src-main/core/samples/take-name.js';

describe('takeName', () => {
  it('is the label, then what tells the take apart', () => {
    expect(takeName('wave', 'a1b2c3d4.cbor')).toBe('wave.a1b2c3d4.cbor');
    expect(takeName(null, 'a1b2c3d4.wav')).toBe('unlabeled.a1b2c3d4.wav');
  });

  it('makes a label a person typed one file name on every OS', () => {
    expect(takeName('left/right', 'a1b2c3d4.cbor')).toBe('left_right.a1b2c3d4.cbor');
    expect(takeName('tap?', 'a1b2c3d4.part2.cbor')).toBe('tap_.a1b2c3d4.part2.cbor');
    expect(takeName('..\\up', 'x.bin')).toBe('_.._up.x.bin');
    expect(takeName('con', 'a1b2c3d4.cbor')).toBe('_con.a1b2c3d4.cbor');
  });
});
