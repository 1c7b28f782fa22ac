// The samples table's find (search, filters, sort, page) as the address keeps it and as the core
// is asked for it: a reload must show the same rows, and a junk address must still show samples.
import { describe, expect, it } from 'vitest';
import { QualityCode } from '../../../src-main/core/contract/contract.js';
import { forgottenCell } from '../../../src-renderer/lib/samples/cell-memory.js';
import { emptyFind, FINDINGS, fromQuery, isFiltered, splitHash, toFilter, toQuery, type SampleFind } from '../../../src-renderer/lib/samples/find.js';

describe('the find in the address', () => {
  it('comes back from its own query unchanged, every part set', () => {
    const f: SampleFind = {
      text: 'wave  ana', state: 'uploaded', labels: ['idle', null, 'a&b=c'], categories: ['testing', 'training'], findings: ['clipping'],
      sources: ['serial:/dev/ttyACM0'], sessions: ['s-1'], from: '2026-11-01', to: '2026-11-25', modelSays: ['wave'], modelDisagrees: true,
      cell: null, sort: { by: 'name', dir: 'asc' }, page: 108,
    };
    expect(fromQuery(toQuery(f))).toEqual(f);
  });

  it('names a model test\'s matrix cell in the address by its key, and asks the core for exactly its samples', () => {
    const cell = { key: 'mf0x1', text: 'actual idle · predicted wave', ids: ['a', 'b'] };
    const f = { ...emptyFind(), cell };
    expect(toQuery(f)).toBe('cell=mf0x1');
    expect(toFilter(f)).toEqual({ ids: ['a', 'b'] });
    expect(isFiltered(f)).toBe(true);
    expect(fromQuery('cell=mf0x1', (key) => (key === cell.key ? cell : forgottenCell(key)))).toEqual(f);
  });

  it('shows a cell the window does not have as such, with no samples, never as every sample', () => {
    const f = fromQuery('cell=zz9&label=idle');
    expect(f.cell).toEqual(forgottenCell('zz9'));
    expect(f.cell?.text).toMatch(/not kept in this window: run the test again/);
    expect(toFilter(f)).toEqual({ labels: ['idle'], ids: [] });
    // A key that is no key of ours is dropped like any junk.
    expect(fromQuery('cell=%3Cscript%3E').cell).toBeNull();
  });

  it('is empty when nothing is set, so the address stays #samples', () => {
    expect(toQuery(emptyFind())).toBe('');
    expect(fromQuery('')).toEqual(emptyFind());
    expect(isFiltered(emptyFind())).toBe(false);
  });

  it('drops what it does not understand and keeps the rest', () => {
    const f = fromQuery('q=idle&state=nonsense&category=cake&category=testing&finding=made-up&finding=silence&sort=size.up&page=-3&from=yesterday');
    expect(f).toEqual({ ...emptyFind(), text: 'idle', categories: ['testing'], findings: ['silence'] });
  });

  it('names pages from 1 in the address and from 0 inside', () => {
    expect(toQuery({ ...emptyFind(), page: 2 })).toBe('page=3');
    expect(fromQuery('page=3').page).toBe(2);
  });

  it('splits the view from the query in the hash', () => {
    expect(splitHash('#samples?q=wave')).toEqual(['samples', 'q=wave']);
    expect(splitHash('#live')).toEqual(['live', '']);
    expect(splitHash('')).toEqual(['', '']);
  });

  it('knows every quality code the contract has', () => {
    expect([...FINDINGS].sort()).toEqual([...QualityCode.options].sort());
  });
});

describe('the find as the core is asked', () => {
  it('sends only what is set', () => {
    expect(toFilter(emptyFind())).toEqual({});
    expect(toFilter({ ...emptyFind(), text: '  ' })).toEqual({});
  });

  it('turns the state buttons into states or the quality flag', () => {
    expect(toFilter({ ...emptyFind(), state: 'queue' })).toEqual({ states: ['queued', 'uploading'] });
    expect(toFilter({ ...emptyFind(), state: 'flagged' })).toEqual({ flagged: true });
  });

  it('makes a day range cover both whole days in local time', () => {
    const f = toFilter({ ...emptyFind(), from: '2026-03-01', to: '2026-03-02' });
    expect(f.createdFrom).toBe(new Date(2026, 2, 1).toISOString());
    expect(f.createdBefore).toBe(new Date(2026, 2, 3).toISOString());
  });

  it('keeps the unlabeled chip as null and the model filters as given', () => {
    expect(toFilter({ ...emptyFind(), labels: [null, 'idle'], modelSays: ['wave'], modelDisagrees: true })).toEqual({ labels: [null, 'idle'], modelSays: ['wave'], modelDisagrees: true });
  });
});
