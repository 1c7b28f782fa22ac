import { describe, expect, it } from 'vitest';
import { savedMessage } from '../../../src-renderer/lib/capture/saved-message.js';

describe('saved message', () => {
  it('says queued only for samples the core queued', () => {
    expect(savedMessage({ ids: ['a'], queued: 1, held: 0 })).toBe('Saved 1 sample; queued for upload.');
    expect(savedMessage({ ids: ['a'], queued: 0, held: 0 })).toBe('Saved 1 sample; kept local (not queued).');
    expect(savedMessage({ ids: ['a', 'b'], queued: 1, held: 0 })).toBe('Saved 2 samples; 1 queued for upload, 1 kept local (not queued).');
  });
  it('names samples held back by the quality rule and how to send them', () => {
    const text = savedMessage({ ids: ['a', 'b'], queued: 1, held: 1 });
    expect(text).toMatch(/^Saved 2 samples; 1 queued for upload\. 1 held back by data-quality checks/);
    expect(text).toContain('Upload anyway');
    expect(savedMessage({ ids: ['a'], queued: 0, held: 1 })).toMatch(/^Saved 1 sample\. 1 held back/);
  });
});
