import { heldSentence } from '../samples/quality.js';

/** What a finished capture produced, as the core counted it (not what was asked for). */
export interface SavedOutcome {
  ids: string[];
  queued: number;
  held: number;
}

/**
 * The confirmation after a capture. It says what the store did with the samples: queued, held
 * back by the quality rule, or kept local for review, so "queued" is never claimed for a sample
 * that is not in the queue.
 */
export function savedMessage({ ids, queued, held }: SavedOutcome): string {
  const n = ids.length;
  const saved = `Saved ${n} sample${n === 1 ? '' : 's'}`;
  const local = n - queued - held;
  const parts: string[] = [];
  if (queued > 0) parts.push(queued === n ? 'queued for upload' : `${queued} queued for upload`);
  if (local > 0) parts.push(local === n ? 'kept local (not queued)' : `${local} kept local (not queued)`);
  return `${saved}${parts.length ? `; ${parts.join(', ')}` : ''}.${heldSentence(held)}`;
}
