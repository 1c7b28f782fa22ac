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
    const s = summarize(outcomes, verdicts, 'key refused', new Set(['a']));
    expect(s.line).toBe('1 uploaded, 2 already present, 2 rejected, 1 failed');
    expect(s.details.slice(0, 3)).toEqual(['rejected /f/d: invalid sensor data file', 'failed /f/e: not sent: uploads stopped (see above)', 'rejected /f/f: too big']);
    expect(s.details[3]).toMatch(/^1 file was already on the platform \(it refused it as a copy/);
    expect(s.allOnPlatform).toBe(false);
  });

  it('counts as uploaded only what the platform stored for this run, not what another run or the app sent meanwhile', () => {
    const outcomes: BulkOutcome[] = [
      { path: '/f/a', status: 'added', id: 'a', state: 'queued' },
      { path: '/f/b', status: 'known', id: 'b', state: 'local' },
    ];
    const verdicts = new Map<string, Verdict>([
      ['a', { state: 'uploaded', note: null, error: null }],
      ['b', { state: 'uploaded', note: null, error: null }],
    ]);
    expect(summarize(outcomes, verdicts, null, new Set(['a'])).line).toBe('1 uploaded, 1 already present, 0 rejected, 0 failed');
  });

  it('names a file on the platform under other words, which is not done as asked', () => {
    const s = summarize([{
      path: '/f/a', status: 'known', id: 'a', state: 'uploaded',
      onPlatform: { there: { label: 'AAA', category: 'training' }, platformSampleId: 7, asked: { label: null, category: 'testing' } },
    }], new Map([['a', { state: 'uploaded', note: null, error: null }]]), null);
    expect(s.line).toBe('0 uploaded, 1 already present, 0 rejected, 0 failed');
    expect(s.otherWords).toBe(1);
    expect(s.details[0]).toMatch(/^\/f\/a is already on the platform as AAA \/ training \(sample 7\), so it was not sent as no label \/ testing$/);
    expect(s.details[1]).toMatch(/^To change it, edit the label or move it to another category on the platform/);
  });

  it('says when a sample vanished during the run', () => {
    const s = summarize([{ path: '/f/x', status: 'added', id: 'x', state: 'queued' }], new Map(), null);
    expect(s.details).toEqual(['failed /f/x: its sample was deleted']);
  });
});
