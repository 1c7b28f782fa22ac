// The filter menus and chips above the samples table: every finding has a name of its own, a
// chosen value missing from the facets can still be unticked, and each chip removes only itself.
import { describe, expect, it } from 'vitest';
import { activeChips, dayOf, FINDING_NAMES, menuOptions, sessionText } from '../../../src-renderer/lib/samples/filter-chips.js';
import { emptyFind, FINDINGS, type SampleFind } from '../../../src-renderer/lib/samples/find.js';
import { parsePage, rangeText } from '../../../src-renderer/lib/samples/pager.js';

describe('filter menus', () => {
  it('name every finding, and no two alike', () => {
    const names = FINDINGS.map((c) => FINDING_NAMES[c]);
    expect(names.every(Boolean)).toBe(true);
    expect(new Set(names).size).toBe(FINDINGS.length);
  });

  it('offer the facets with their counts, ticked as chosen, and chosen values the facets lack', () => {
    const opts = menuOptions(
      [
        { value: 'idle', count: 40 },
        { value: null, count: 3 },
      ],
      [null, 'gone'],
      (l) => l ?? 'unlabeled',
    );
    expect(opts).toEqual([
      { value: 'idle', text: 'idle', count: 40, checked: false },
      { value: null, text: 'unlabeled', count: 3, checked: true },
      { value: 'gone', text: 'gone', count: null, checked: true },
    ]);
  });

  it('name a session by when it was recorded and a short id', () => {
    const at = (iso: string) => `at ${iso.slice(11, 16)}`;
    expect(sessionText({ session: '3f2a9c1e-77b0-4c4e', last: '2026-11-02T10:15:00.000Z' }, at)).toBe('at 10:15 · 3f2a9c1e…');
    expect(sessionText({ session: 'take-7' }, at)).toBe('take-7');
  });

  it('read an ISO time as the local day a date input shows', () => {
    const local = new Date(2026, 10, 2, 23, 59).toISOString();
    expect(dayOf(local)).toBe('2026-11-02');
    expect(dayOf(null)).toBe('');
    expect(dayOf('not a date')).toBe('');
  });
});

describe('filter chips', () => {
  const f: SampleFind = {
    ...emptyFind(),
    text: 'ana',
    state: 'uploaded',
    labels: ['idle', null],
    categories: ['testing'],
    findings: ['timestamp-gaps'],
    sessions: ['s-1'],
    from: '2026-11-01',
    modelSays: ['wave'],
    modelDisagrees: true,
    cell: { key: 'k1', text: 'actual idle · predicted wave', ids: ['s1', 's2'] },
  };

  it('show every filter beyond the search and the state buttons, in the order of the menus', () => {
    expect(activeChips(f, (s) => `session ${s}`).map((c) => c.text)).toEqual([
      'Label: idle',
      'Label: unlabeled',
      'Category: testing',
      'Quality: Timestamp gaps',
      'Session: session s-1',
      'From 2026-11-01',
      'Model says: wave',
      'Model disagrees with the label',
      'actual idle · predicted wave',
    ]);
    expect(activeChips(emptyFind())).toEqual([]);
  });

  it('each take away only themselves', () => {
    const chips = activeChips(f);
    const apply = (id: string) => ({ ...f, ...chips.find((c) => c.id === id)!.without });
    expect(apply('labels:').labels).toEqual(['idle']);
    expect(apply('labels:idle').labels).toEqual([null]);
    expect(apply('from')).toEqual({ ...f, from: null });
    expect(apply('disagrees')).toEqual({ ...f, modelDisagrees: false });
    expect(apply('cell')).toEqual({ ...f, cell: null });
    expect(new Set(chips.map((c) => c.id)).size).toBe(chips.length);
  });
});

describe('the pager', () => {
  it('says which rows a page holds', () => {
    expect(rangeText(500, 500, 55_000)).toBe('501–1,000 of 55,000');
    expect(rangeText(1000, 150, 1150)).toBe('1,001–1,150 of 1,150');
    expect(rangeText(0, 0, 0)).toBe('0 of 0');
  });

  it('reads a typed page number, held within the pages there are', () => {
    expect(parsePage('3', 10)).toBe(2);
    expect(parsePage(' 1,200 ', 2000)).toBe(1199);
    expect(parsePage('0', 10)).toBe(0);
    expect(parsePage('99', 10)).toBe(9);
    expect(parsePage('two', 10)).toBeNull();
    expect(parsePage('', 10)).toBeNull();
    expect(parsePage('-2', 10)).toBeNull();
  });
});
