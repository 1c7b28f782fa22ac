import { describe, expect, it } from 'vitest';
import { PreRollBuffer } from '../../src-main/core/audio/pre-roll.js';

const seq = (from: number, n: number) => Int16Array.from({ length: n }, (_, i) => from + i);

describe('PreRollBuffer', () => {
  it('returns the last N frames, oldest first, across the wrap-around', () => {
    const b = new PreRollBuffer(10);
    b.push(seq(0, 7));
    b.push(seq(7, 6)); // wraps
    expect([...b.last(10)]).toEqual([...seq(3, 10)]);
    expect([...b.last(4)]).toEqual([9, 10, 11, 12]);
    expect(b.frames).toBe(10);
  });

  it('gives what it has when asked for more than was captured', () => {
    const b = new PreRollBuffer(100);
    b.push(seq(0, 5));
    expect([...b.last(50)]).toEqual([0, 1, 2, 3, 4]);
    expect(b.last(0).length).toBe(0);
  });

  it('keeps only the tail of a chunk bigger than its capacity', () => {
    const b = new PreRollBuffer(8);
    b.push(seq(0, 3));
    b.push(seq(3, 20));
    expect([...b.last(8)]).toEqual([...seq(15, 8)]);
  });

  it('matches a plain list over many random pushes (memory never grows)', () => {
    const cap = 1000;
    const b = new PreRollBuffer(cap);
    const all: number[] = [];
    let v = 0;
    for (let i = 0; i < 500; i++) {
      const n = Math.floor(Math.random() * 300);
      const chunk = seq(v % 30_000, n);
      v += n;
      b.push(chunk);
      all.push(...chunk);
      const ask = Math.floor(Math.random() * 1200);
      expect([...b.last(ask)]).toEqual(all.slice(Math.max(0, all.length - Math.min(ask, cap))));
      if (all.length > 5000) all.splice(0, all.length - 2000);
    }
  });

  it('with no capacity, keeps nothing', () => {
    const b = new PreRollBuffer(0);
    b.push(seq(0, 10));
    expect(b.last(10).length).toBe(0);
  });
});
