// The pager under the search: which rows a page holds, in words, and what a typed page number means.

/** Counts as the rest of the app writes them ("55,000"); one locale, so tests read the same everywhere. */
const count = new Intl.NumberFormat('en-US');
export const formatCount = (n: number): string => count.format(n);

/** "501–1,000 of 55,000" for the second page of 500; "0 of 0" when nothing matches. */
export function rangeText(offset: number, shown: number, total: number): string {
  if (total === 0 || shown === 0) return `0 of ${formatCount(total)}`;
  return `${formatCount(offset + 1)}–${formatCount(offset + shown)} of ${formatCount(total)}`;
}

/**
 * The 0-based page a typed number asks for, held within 1…pageCount; null for what is not a
 * number (the box then goes back to the page shown). "1,200" and " 7 " are read as numbers.
 */
export function parsePage(text: string, pageCount: number): number | null {
  const t = text.replace(/[\s,]/g, '');
  if (!/^\d+$/.test(t)) return null;
  return Math.min(Math.max(Number(t), 1), Math.max(pageCount, 1)) - 1;
}
