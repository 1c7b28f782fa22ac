import type { PendingUpload, PendingUploads } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import { followEvent } from '../api/reconnect.js';
import { Rerun } from './rerun.js';

/** How many waiting samples the queue panel lists; the rest are counted. */
export const PENDING_SHOWN = 50;

/**
 * What waits to be sent, as the queue panel lists it. Read again on each queue.changed: the core
 * sends that event coalesced (≤ 10/s) for batches, captures and edits of a sample's words alike,
 * and a burst of them costs at most two reads here (Rerun), never one per sample.
 */
export class PendingUploadsState {
  pending = $state.raw<PendingUploads | null>(null);
  error = $state<string | null>(null);
  /** Waiting beyond the ones listed. */
  more = $derived(this.pending ? this.pending.total - this.pending.items.length : 0);
  readonly #read = new Rerun(async () => {
    const r = await answer(() => this.api.call('uploads.pending', { limit: PENDING_SHOWN }));
    if (r.ok) this.pending = r.value;
    this.error = r.error;
  });

  constructor(private readonly api: Api) {}

  refresh(): Promise<void> {
    return this.#read.run();
  }

  subscribe(): () => void {
    void this.refresh();
    return followEvent(this.api, 'queue.changed', () => void this.refresh(), () => void this.refresh());
  }
}

/** The label a waiting sample goes with, in words: never an empty cell that could mean either. */
export function labelWords(p: Pick<PendingUpload, 'label' | 'labelFromName'>): string {
  if (p.label === null) return 'no label';
  return p.labelFromName ? `${p.label} (label from file name)` : p.label;
}

/** Where a waiting sample stands: on its way, waiting for a retry at a time, or waiting its turn. */
export function stateWords(p: Pick<PendingUpload, 'state' | 'nextAttemptAt' | 'attempts'>, now: number, paused: boolean): string {
  if (p.state === 'uploading') return 'sending now';
  const tried = p.attempts > 0 ? ` (tried ${p.attempts === 1 ? 'once' : `${p.attempts} times`})` : '';
  if (paused) return `waiting: uploads are paused${tried}`;
  if (p.nextAttemptAt !== null && p.nextAttemptAt > now) return `next try at ${new Date(p.nextAttemptAt).toLocaleTimeString()}${tried}`;
  return `waiting its turn${tried}`;
}
