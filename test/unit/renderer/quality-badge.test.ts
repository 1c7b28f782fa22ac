import { describe, expect, it } from 'vitest';
import { heldSentence, qualityBadge } from '../../../src-renderer/lib/samples/quality.js';

const report = (findings: Array<{ code: 'lost-readings' | 'flat-axis' | 'too-short'; severity: 'warning' | 'error' }>) => ({
  checkedAt: '2026-01-01T00:00:00Z',
  findings: findings.map((f) => ({ ...f, message: `${f.code} message` })),
});

describe('quality badge text', () => {
  it('names the worst finding, counts the rest, and keeps every message for the tooltip', () => {
    const b = qualityBadge({ quality: report([{ code: 'lost-readings', severity: 'error' }, { code: 'flat-axis', severity: 'warning' }]), flagged: 'error' });
    expect(b).toEqual({ tone: 'error', text: 'Gaps +1', details: ['lost-readings message', 'flat-axis message'] });
    expect(qualityBadge({ quality: report([{ code: 'flat-axis', severity: 'warning' }]), flagged: 'warning' })).toMatchObject({ tone: 'warning', text: 'Flat line' });
  });

  it('tells a clean sample from one never checked', () => {
    expect(qualityBadge({ quality: report([]), flagged: null })).toMatchObject({ tone: 'ok', text: 'OK' });
    expect(qualityBadge({ quality: null, flagged: null })).toMatchObject({ tone: 'unchecked' });
  });

  it('says what to do about held samples only when there are any', () => {
    expect(heldSentence(0)).toBe('');
    expect(heldSentence(2)).toContain('2 held back by data-quality checks');
    expect(heldSentence(2)).toContain('Upload anyway');
  });
});
