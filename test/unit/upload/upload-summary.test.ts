import { describe, expect, it } from 'vitest';
import { summarize, type Verdict } from '../../../src-main/cli/upload-summary.js';
import type { BulkOutcome } from '../../../src-main/core/import/bulk-import.js';

describe('summarize', () => {
  it('counts each file once: uploaded now, already present, rejected, failed', () => {
    const outcomes: BulkOutcome[] = [
      { path: '/f/a', status: 'added', id: 'a', state: 'queued' },
      { path: '/f/b', status: 'known', id: 'b', state: 'uploaded' },
      { path: '/f/c', status: 'added', id: 'c', state: 'queued' },
      { path: '/f/d', status: 'added', id: 'd', state: 'queued' },
      { path: '/f/e', status: 'known', id: 'e', state: 'failed' },
      { path: '/f/f', status: 'refused', reason: 'too big' },
    ];
    const verdicts = new Map<string, Verdict>([
      ['a', { state: 'uploaded', note: null, error: null }],
      ['b', { state: 'uploaded', note: null, error: null }],
      ['c', { state: 'uploaded', note: 'Already on the platform (exists).', error: null }],
      ['d', { state: 'rejected', note: null, error: 'invalid sensor data file' }],
      ['e', { state: 'queued', note: null, error: null }],
    ]);
    const s = summarize(outcomes, verdicts, 'key refused');
    expect(s.line).toBe('1 uploaded, 2 already present, 2 rejected, 1 failed');
    expect(s.details).toEqual(['rejected /f/d: invalid sensor data file', 'failed /f/e: key refused', 'rejected /f/f: too big']);
    expect(s.allOnPlatform).toBe(false);
  });

  it('says when a sample vanished during the run', () => {
    const s = summarize([{ path: '/f/x', status: 'added', id: 'x', state: 'queued' }], new Map(), null);
    expect(s.details).toEqual(['failed /f/x: its sample was deleted']);
  });
});
