// The queue panel's words for a waiting sample: the label it is sent with never reads as an empty
// cell, and its state says whether it is on its way, waiting for a retry, or held by a pause.
import { describe, expect, it } from 'vitest';
import { labelWords, stateWords } from '../../../src-renderer/lib/state/pending-uploads.svelte.js';

describe('queue panel words', () => {
  it('names the label sent, the file-name rule, or none', () => {
    expect(labelWords({ label: 'wave', labelFromName: false })).toBe('wave');
    expect(labelWords({ label: 'idle', labelFromName: true })).toBe('idle (label from file name)');
    expect(labelWords({ label: null, labelFromName: false })).toBe('no label');
  });

  it('says in flight, paused, a retry to come, or its turn, with the attempts so far', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    expect(stateWords({ state: 'uploading', nextAttemptAt: null, attempts: 0 }, now, false)).toBe('sending now');
    expect(stateWords({ state: 'queued', nextAttemptAt: null, attempts: 0 }, now, true)).toBe('waiting: uploads are paused');
    expect(stateWords({ state: 'queued', nextAttemptAt: now + 30_000, attempts: 2 }, now, false)).toBe(`next try at ${new Date(now + 30_000).toLocaleTimeString()} (tried 2 times)`);
    expect(stateWords({ state: 'queued', nextAttemptAt: now - 1, attempts: 1 }, now, false)).toBe('waiting its turn (tried once)');
  });
});
