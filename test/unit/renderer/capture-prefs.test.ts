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
