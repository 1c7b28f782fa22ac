// A matrix cell shown in the Samples view survives a reload of the window: the address holds its
// key, the window's sessionStorage its ids. Only the newest few are kept; a full storage costs the
// reload only; a key this window does not have (or an edited entry) shows as a forgotten cell.
import { describe, expect, it, vi } from 'vitest';
import { CELLS_KEPT, CellMemory, forgottenCell, type CellStorage } from '../../../src-renderer/lib/samples/cell-memory.js';

function mapStorage(opts: { full?: boolean } = {}): CellStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => {
      if (opts.full) throw new Error('QuotaExceededError');
      map.set(k, v);
    },
    removeItem: (k) => void map.delete(k),
  };
}

describe('matrix cells kept for the address', () => {
  it('recalls a cell by its key in another CellMemory on the same storage (a reload)', () => {
    const storage = mapStorage();
    const ids = Array.from({ length: 5000 }, (_, i) => `sample-${i}`);
    const cell = new CellMemory(storage).remember('actual idle · predicted wave', ids);
    expect(cell.key).toMatch(/^[0-9a-z]+$/);
    expect(new CellMemory(storage).recall(cell.key)).toEqual({ key: cell.key, text: 'actual idle · predicted wave', ids });
  });

  it('gives each cell its own key and keeps only the newest', () => {
    const storage = mapStorage();
    const memory = new CellMemory(storage);
    const cells = Array.from({ length: CELLS_KEPT + 3 }, (_, i) => memory.remember(`cell ${i}`, [`id${i}`]));
    expect(new Set(cells.map((c) => c.key)).size).toBe(cells.length);
    expect(memory.recall(cells[0]!.key)).toEqual(forgottenCell(cells[0]!.key));
    expect(memory.recall(cells[2]!.key).ids).toEqual([]);
    expect(memory.recall(cells[3]!.key).ids).toEqual(['id3']);
    expect(memory.recall(cells.at(-1)!.key).text).toBe(`cell ${CELLS_KEPT + 2}`);
    expect([...storage.map.keys()].filter((k) => k.startsWith('capture-desk.cell.'))).toHaveLength(CELLS_KEPT);
  });

  it('still shows a cell when the storage refuses it, and says so in the console', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const cell = new CellMemory(mapStorage({ full: true })).remember('actual a · predicted b', ['x']);
    expect(cell.ids).toEqual(['x']);
    expect(warn).toHaveBeenCalledWith('A matrix cell could not be kept for a reload:', expect.any(Error));
    warn.mockRestore();
    expect(new CellMemory(null).remember('t', ['y']).ids).toEqual(['y']);
  });

  it('treats a key it does not have, or an entry that is not a cell, as forgotten', () => {
    const storage = mapStorage();
    storage.map.set('capture-desk.cell.abc', '{"text": 3}');
    storage.map.set('capture-desk.cell.def', 'not json');
    const memory = new CellMemory(storage);
    expect(memory.recall('abc')).toEqual(forgottenCell('abc'));
    expect(memory.recall('def')).toEqual(forgottenCell('def'));
    expect(memory.recall('nope')).toEqual(forgottenCell('nope'));
  });
});
