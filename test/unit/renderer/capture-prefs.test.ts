// The Live view's Events field starts empty: a digit pressed while recording marks only events the
// person named. Earlier versions stored "event" there unasked; that is not kept.
import { describe, expect, it } from 'vitest';
import { CapturePrefs } from '../../../src-renderer/lib/capture/capture-prefs.svelte.js';

const KEY = 'capture-desk.capture-prefs.v1';
const storage = (saved: object | null) => {
  const m = new Map<string, string>(saved ? [[KEY, JSON.stringify(saved)]] : []);
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), saved: () => JSON.parse(m.get(KEY) ?? 'null') as { eventNames: string[] } | null };
};

describe('capture preferences: event names', () => {
  it('start empty', () => {
    expect(new CapturePrefs(storage(null)).eventNames).toEqual([]);
    expect(new CapturePrefs(null).eventNames).toEqual([]);
  });

  it('drop the "event" earlier versions filled in unasked, keep names the person typed', () => {
    expect(new CapturePrefs(storage({ eventNames: ['event'] })).eventNames).toEqual([]);
    expect(new CapturePrefs(storage({ eventNames: ['tap', 'shake'] })).eventNames).toEqual(['tap', 'shake']);
    expect(new CapturePrefs(storage({ eventNames: ['event', 'tap'] })).eventNames).toEqual(['event', 'tap']);
  });

  it('are kept as typed across a reload', () => {
    const s = storage(null);
    const prefs = new CapturePrefs(s);
    prefs.eventNames = ['knock'];
    prefs.save();
    expect(s.saved()?.eventNames).toEqual(['knock']);
    expect(new CapturePrefs(s).eventNames).toEqual(['knock']);
  });
});

// A label typed or pasted into the capture panel is checked before the take starts, in words a
// person can act on: the contract's schema text ("Too big: expected string to have <=128
// characters", behind "Invalid arguments for record.start") was all they saw before.
describe('capture preferences: the label to record with', () => {
  const withLabel = (label: string) => Object.assign(new CapturePrefs(storage(null)), { label });

  it('is trimmed, and empty or blank means unlabeled', () => {
    expect(withLabel('  wave ').labelToSend()).toBe('wave');
    expect(withLabel('').labelToSend()).toBeNull();
    expect(withLabel('   ').labelToSend()).toBeNull();
  });

  it('of up to 128 characters is taken; a longer one is refused, saying its length and the limit', () => {
    expect(withLabel('x'.repeat(128)).labelToSend()).toBe('x'.repeat(128));
    expect(() => withLabel('x'.repeat(200)).labelToSend()).toThrow('The label is 200 characters long; a label is at most 128. Shorten it.');
  });

  it('with a pasted tab inside is refused, saying why', () => {
    expect(() => withLabel('id\tle').labelToSend()).toThrow(/tab, line break or other control character/);
  });
});
