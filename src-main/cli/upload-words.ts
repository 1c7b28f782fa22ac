import type { BulkOutcome } from '../core/import/bulk-import.js';
import type { OnPlatform, Words } from '../core/import/bulk-outcome.js';

/** "BBB / testing": how the summary names what a sample is stored as. */
export const wordsText = (w: Words): string => `${w.label ?? 'no label'} / ${w.category}`;

/**
 * The files an earlier run had left unsent with other words, which this run replaced with its own,
 * e.g. "2 queued with another label and category earlier: now sent as BBB / testing". "Sent" only
 * for what the platform stored for this run (`stored`); the others keep the new words for the next.
 */
export function describeRetaken(outcomes: readonly BulkOutcome[], stored: ReadonlySet<string>): string[] {
  const groups = new Map<string, number>();
  for (const o of outcomes) {
    if (o.status === 'refused' || !o.retaken) continue;
    const line = `queued with ${aspects(o.retaken.changed)} earlier: now ${stored.has(o.id) ? 'sent' : 'queued'} as ${wordsText(o.retaken.now)}`;
    groups.set(line, (groups.get(line) ?? 0) + 1);
  }
  return [...groups].map(([line, n]) => `${n} ${line}`);
}

/** "another label and category", "other metadata and flags", "another label, and other metadata". */
function aspects(changed: readonly string[]): string {
  const label = changed.includes('label');
  const category = changed.includes('category');
  const parts = label && category ? ['another label and category'] : label ? ['another label'] : category ? ['another category'] : [];
  const rest = changed.filter((c) => c !== 'label' && c !== 'category' && c !== 'HMAC signing');
  if (rest.length > 0) parts.push(`other ${joinAnd(rest)}`);
  if (changed.includes('HMAC signing')) parts.push('another HMAC signing');
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')}, and ${parts.at(-1)}` : parts[0] ?? 'other words';
}

function joinAnd(xs: readonly string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`;
}

/**
 * A file this run names that the platform has under other words is not sent again (a second copy
 * would put two labels on one recording): said per file with what it is stored as there.
 */
export function onPlatformLine(path: string, o: OnPlatform): string {
  const id = o.platformSampleId === null ? '' : `sample ${o.platformSampleId}`;
  const where = o.there === null
    ? `is already on the platform (${id ? `${id}, ` : ''}sent by another upload, with the label and category that upload gave it)`
    : `is already on the platform as ${wordsText(o.there)}${id ? ` (${id})` : ''}`;
  return `${path} ${where}, so it was not sent as ${wordsText(o.asked)}`;
}

/**
 * What to do about those files, said once after them. The spec offers no relabel call and this
 * command no move, so the change is made on the platform; a second copy is what --allow-duplicates
 * gives, from a data folder that does not know the file as sent.
 */
export function onPlatformAdvice(n: number): string {
  const them = n === 1 ? 'it' : 'them';
  return `To change ${them}, edit the label or move ${them} to another category on the platform, in the project's dataset (this command does not change samples already sent). ` +
    `To store a second copy under the new words instead, run the command again with --allow-duplicates and another --data-dir, then delete the old ${n === 1 ? 'sample' : 'samples'} on the platform.`;
}
