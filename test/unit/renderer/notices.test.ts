// Notices in the corner: information fades by itself (and is said once to screen readers); errors,
// warnings and anything asking for an action stay until dismissed; nothing piles up.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src-renderer/lib/api/client.js';
import { Notices } from '../../../src-renderer/lib/state/notices.svelte.js';

let notices: Notices;
beforeEach(() => {
  vi.useFakeTimers();
  notices = new Notices();
});
afterEach(() => {
  notices.dispose();
  vi.useRealTimers();
});
const texts = () => notices.list.map((n) => n.text);

describe('notices', () => {
  it('information fades after a few seconds; errors and warnings stay until dismissed', () => {
    notices.info('Saved 1 sample; kept local (not queued).');
    notices.info('1 sample set to testing.');
    notices.error('Upload failed', new ApiError({ code: 'Unauthorized', message: 'the platform refused the API key' }));
    notices.warn('The sample index was lost and rebuilt.');
    expect(texts()).toHaveLength(4);
    vi.advanceTimersByTime(Notices.INFO_MS - 1);
    expect(texts()).toHaveLength(4);
    vi.advanceTimersByTime(1);
    expect(texts()).toEqual(['Upload failed: the platform refused the API key', 'The sample index was lost and rebuilt.']);
    vi.advanceTimersByTime(60_000);
    expect(texts()).toHaveLength(2);
    notices.dismiss(notices.list[0]!.id);
    expect(texts()).toEqual(['The sample index was lost and rebuilt.']);
    expect(Notices.INFO_MS).toBeLessThanOrEqual(6000);
  });

  it('information that asks for an action stays, and its action closes it', () => {
    const run = vi.fn();
    notices.info('Saved 1 sample. 1 held back by data-quality checks.', { action: { label: 'Show flagged samples', run } });
    notices.info('Type a label first.', { sticky: true });
    vi.advanceTimersByTime(60_000);
    expect(notices.list.map((n) => n.sticky)).toEqual([true, true]);
    notices.act(notices.list[0]!);
    expect(run).toHaveBeenCalledOnce();
    expect(texts()).toEqual(['Type a label first.']);
    notices.dismissAll();
    expect(texts()).toEqual([]);
  });

  it('the same words again are counted on one notice, which starts its time again', () => {
    notices.info('3 samples queued for upload.');
    vi.advanceTimersByTime(Notices.INFO_MS - 100);
    notices.info('3 samples queued for upload.');
    expect(notices.list).toHaveLength(1);
    expect(notices.list[0]!.count).toBe(2);
    vi.advanceTimersByTime(Notices.INFO_MS - 100);
    expect(notices.list).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(notices.list).toHaveLength(0);
  });

  it('nothing fades while the pointer or keyboard is on the notices; released, each gets its full time', () => {
    notices.info('Exported 2 files.');
    vi.advanceTimersByTime(Notices.INFO_MS - 10);
    notices.hold();
    vi.advanceTimersByTime(60_000);
    expect(texts()).toEqual(['Exported 2 files.']);
    notices.info('Added while held.');
    vi.advanceTimersByTime(60_000);
    expect(texts()).toHaveLength(2);
    notices.release();
    vi.advanceTimersByTime(Notices.INFO_MS - 10);
    expect(texts()).toHaveLength(2);
    vi.advanceTimersByTime(10);
    expect(texts()).toEqual([]);
  });

  it('never more than a handful: the oldest fading notice makes way first, errors only when nothing fades', () => {
    notices.error('First failure', new Error('a'));
    for (let i = 1; i <= Notices.MAX + 2; i++) notices.info(`note ${i}`);
    expect(notices.list).toHaveLength(Notices.MAX);
    expect(texts()[0]).toBe('First failure: a');
    expect(texts().at(-1)).toBe(`note ${Notices.MAX + 2}`);
    for (let i = 1; i <= Notices.MAX; i++) notices.error(`Failure ${i}`, new Error('b'));
    expect(notices.list).toHaveLength(Notices.MAX);
    expect(texts()).not.toContain('First failure: a');
    // A new note still shows: the oldest error made way for it.
    notices.info('one more note');
    expect(texts().at(-1)).toBe('one more note');
  });

  it('information is said through the live region, the same words twice said twice', () => {
    notices.info('1 sample deleted.');
    const first = notices.spoken;
    expect(first.trim()).toBe('1 sample deleted.');
    notices.info('1 sample deleted.');
    expect(notices.spoken.trim()).toBe('1 sample deleted.');
    expect(notices.spoken).not.toBe(first);
    notices.error('Delete failed', new Error('busy'));
    expect(notices.spoken.trim()).toBe('1 sample deleted.'); // errors are alerts where they are shown
  });
});
