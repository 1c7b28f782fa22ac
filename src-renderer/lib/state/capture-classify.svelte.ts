import type { ClassificationDigest, ClassifyAfterUpload, ClassifyState } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { answer } from '../api/answer.js';
import { errorText } from '../format.js';

/** One take of the last capture and what the model said about it so far. */
export interface TakeVerdict {
  id: string;
  /** The latest samples.classifyState of the take (null: none heard yet). */
  state: ClassifyState | null;
  /** While the platform's job runs: when the next request goes out (Date.now() time). */
  retryAt: number | null;
  /** A result kept already (asked for when the take is followed). */
  kept: ClassificationDigest | null;
}

/**
 * The capture panel's "Classify each take after upload": the option (a core setting, off by
 * default), and the last capture's takes with the model's summary once the core classified them.
 */
export class CaptureClassify {
  afterUpload = $state<ClassifyAfterUpload>('off');
  error = $state<string | null>(null);
  takes = $state.raw<readonly TakeVerdict[]>([]);

  constructor(private readonly api: Api) {}

  async load(): Promise<void> {
    const r = await answer(() => this.api.call('samples.classifyOptions', {}));
    if (r.ok) this.afterUpload = r.value.afterUpload;
    this.error = r.error;
  }

  async set(v: ClassifyAfterUpload): Promise<void> {
    const before = this.afterUpload;
    this.afterUpload = v;
    try {
      this.afterUpload = (await this.api.call('samples.setClassifyOptions', { afterUpload: v })).afterUpload;
      this.error = null;
    } catch (err) {
      this.afterUpload = before;
      this.error = `Could not save the option: ${errorText(err)}`;
    }
  }

  /** The takes a capture just saved: their classification is shown as it comes. */
  async follow(ids: readonly string[]): Promise<void> {
    // The same capture said twice keeps what was heard of it.
    if (ids.length === this.takes.length && ids.every((id, i) => this.takes[i]!.id === id)) return;
    this.takes = ids.map((id) => ({ id, state: null, retryAt: null, kept: null }));
    if (ids.length === 0) return;
    try {
      const { results } = await this.api.call('samples.modelSays', { ids: [...ids] });
      const byId = new Map(results.map((r) => [r.id, r]));
      this.takes = this.takes.map((t) => (byId.has(t.id) && t.state === null ? { ...t, kept: byId.get(t.id)! } : t));
    } catch {
      // Only a head start: the events bring the result.
    }
  }

  /** Progress of the takes followed, and the option changed elsewhere; returns the cleanup for an $effect. */
  subscribe(): () => void {
    const offState = this.api.on('samples.classifyState', (s) => {
      if (!this.takes.some((t) => t.id === s.id)) return;
      const retryAt = s.state === 'waiting' && s.retryInMs !== null ? Date.now() + s.retryInMs : null;
      this.takes = this.takes.map((t) => (t.id === s.id ? { ...t, state: s, retryAt, kept: s.digest ?? t.kept } : t));
    });
    const offSettings = this.api.on('settings.changed', (s) => (this.afterUpload = s.classifyAfterUpload));
    return () => {
      offState();
      offSettings();
    };
  }
}
