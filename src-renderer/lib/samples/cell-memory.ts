// A model test's matrix cell shown in the Samples view, kept for the address. Its ids (up to 5,000)
// are too many for an address and belong to one test run, so the address names the cell by a key
// (`#samples?cell=k1x2…`) and the ids are kept in sessionStorage: a reload of the window (or of the
// browser shell's tab) shows the same samples under the same chip. Another tab, or a bookmark
// opened later, does not have them: the chip then says so and shows no samples rather than all.

export interface ShownCell {
  /** In the address. */
  key: string;
  /** The chip ("actual idle · predicted wave"). */
  text: string;
  ids: string[];
}

/** sessionStorage's part that is used (typed here: tests run this file under Node). */
export interface CellStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

const PREFIX = 'capture-desk.cell.';
const ORDER = 'capture-desk.cells';
/** Cells kept at once (the newest): each may hold 5,000 ids, ~0.2 MB, of the tab's 5 MB. */
export const CELLS_KEPT = 8;

/** The chip of a cell whose samples this tab does not have. */
export const forgottenCell = (key: string): ShownCell => ({
  key,
  text: 'a matrix cell of an earlier model test (its samples are not kept in this window: run the test again)',
  ids: [],
});

export class CellMemory {
  #counter = 0;

  constructor(private readonly storage: CellStorage | null = (globalThis as { sessionStorage?: CellStorage }).sessionStorage ?? null) {}

  /** Keeps a cell for the address; without storage (or when it is full) the cell still shows, only a reload loses it. */
  remember(text: string, ids: string[]): ShownCell {
    const key = `${Date.now().toString(36)}${(this.#counter++).toString(36)}`;
    const cell = { key, text, ids };
    if (!this.storage) return cell;
    try {
      const order = [...this.#order().filter((k) => k !== key), key];
      for (const old of order.splice(0, Math.max(0, order.length - CELLS_KEPT))) this.storage.removeItem(PREFIX + old);
      this.storage.setItem(PREFIX + key, JSON.stringify({ text, ids }));
      this.storage.setItem(ORDER, JSON.stringify(order));
    } catch (err) {
      // A full or refused storage costs only the reload; the cell shows now. Said in the console, not hidden.
      console.warn('A matrix cell could not be kept for a reload:', err);
    }
    return cell;
  }

  /** The cell an address names; the forgotten-cell chip when this window does not have it. */
  recall(key: string): ShownCell {
    try {
      const raw = this.storage?.getItem(PREFIX + key);
      const v: unknown = raw ? JSON.parse(raw) : null;
      if (isKept(v)) return { key, text: v.text, ids: v.ids };
    } catch {
      // Unreadable (edited by hand): the same as not kept.
    }
    return forgottenCell(key);
  }

  #order(): string[] {
    try {
      const v: unknown = JSON.parse(this.storage?.getItem(ORDER) ?? '[]');
      return Array.isArray(v) ? v.filter((k): k is string => typeof k === 'string') : [];
    } catch {
      return [];
    }
  }
}

function isKept(v: unknown): v is { text: string; ids: string[] } {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as { text?: unknown; ids?: unknown };
  return typeof o.text === 'string' && Array.isArray(o.ids) && o.ids.every((id) => typeof id === 'string');
}
