import type { Classification, ClassifiedBlock, ClassifyState, ClassifyVariant, ModelEntry, SampleOverview } from '../../../src-main/core/contract/contract.js';
import { ApiError, type Api } from '../api/client.js';
import { modelMisfit } from '../classify/words.js';
import { errorText } from '../format.js';

/** A classification that did not come back: the core's words (what happened and what to do) and why, for code. */
export interface ClassifyFailure {
  message: string;
  /** details.reason of the core's error (no-impulse, deleted, …); null when the call failed otherwise. */
  reason: string | null;
}

function failureOf(err: unknown): ClassifyFailure {
  const details = err instanceof ApiError ? (err.details as { reason?: unknown } | undefined) : undefined;
  return { message: errorText(err), reason: typeof details?.reason === 'string' ? details.reason : null };
}

/** A model added on this computer, as the source picker offers it: why it cannot classify this sample, if it cannot. */
export interface LocalChoice {
  name: string;
  misfit: string | null;
}

/**
 * "Does the model get it right?" for the sample open in the sample view: what classifies it (the
 * platform's impulse, with the variant and impulse id the core remembers per project, or a model
 * added on this computer), the kept result (shown on open without asking anyone: the newest one,
 * whichever made it), a new classification with its progress and cancel, and the window the
 * keyboard or the mouse is on (shared by the plot's and the spectrogram's bands).
 */
export class SampleClassification {
  /** null: the platform's impulse; else the name of a model added on this computer. */
  source = $state<string | null>(null);
  /** The models added on this computer (models.list, kept up to date by models.changed). */
  models = $state.raw<ModelEntry[]>([]);
  variant = $state<ClassifyVariant>('int8');
  impulseId = $state<number | null>(null);
  projectId = $state<number | null>(null);
  result = $state.raw<Classification | null>(null);
  /** The learn block shown (an impulse may have several). */
  blockIndex = $state(0);
  /** The latest progress of a classification of this sample (asked here or after its upload). */
  progress = $state.raw<ClassifyState | null>(null);
  /** While the platform's job runs: when the next request goes out (Date.now() time). */
  retryAt = $state<number | null>(null);
  failure = $state.raw<ClassifyFailure | null>(null);
  /** Said after a cancel (not an error). */
  notice = $state<string | null>(null);
  /** Reading the options and the kept result. */
  loading = $state(true);
  running = $state(false);
  /** The window whose band has keyboard focus, and the one under the mouse. */
  focused = $state<number | null>(null);
  hovered = $state<number | null>(null);

  readonly block: ClassifiedBlock | null = $derived(this.result ? (this.result.blocks[this.blockIndex] ?? this.result.blocks[0] ?? null) : null);
  /** Each added model and why it cannot classify this sample (null: it can). */
  readonly choices: LocalChoice[] = $derived(this.models.map((m) => ({ name: m.name, misfit: modelMisfit(m, this.overview()) })));
  /** The window the detail line tells about: the hovered one, else the focused one. */
  readonly active: number | null = $derived(this.hovered ?? this.focused);
  #asked = 0;

  /** overview: the sample's axes, rate and length once the view has them (which models fit). */
  constructor(
    private readonly api: Api,
    readonly sampleId: string,
    private readonly overview: () => Pick<SampleOverview, 'axes' | 'intervalMs' | 'lengthMs' | 'kind'> | null = () => null,
  ) {}

  /**
   * The remembered variant and impulse id and the added models, then the kept result: the
   * sample's newest, so one made on this computer shows with its model picked (no request to anyone).
   */
  async load(): Promise<void> {
    this.loading = true;
    try {
      const [o, models, says] = await Promise.all([
        this.api.call('samples.classifyOptions', {}),
        this.api.call('models.list', {}).catch(() => [] as ModelEntry[]),
        this.api.call('samples.modelSays', { ids: [this.sampleId] }).catch(() => ({ results: [] })),
      ]);
      this.variant = o.variant;
      this.impulseId = o.impulseId;
      this.projectId = o.projectId;
      this.models = models;
      const newest = says.results[0];
      if (newest?.local && this.source === null) this.source = newest.local.model;
      await this.#showKept();
    } catch (err) {
      this.failure = failureOf(err);
    } finally {
      this.loading = false;
    }
  }

  /** Asks the platform, or the model picked on this computer (always), shows the answer and keeps it (the core does). */
  async classify(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.failure = null;
    this.notice = null;
    const model = this.source;
    try {
      const c = model === null
        ? await this.api.call('samples.classify', { id: this.sampleId, variant: this.variant, impulseId: this.impulseId })
        : await this.api.call('samples.classifyLocal', { id: this.sampleId, model });
      this.#asked++; // a kept result asked for earlier must not replace this one
      this.#show(c);
    } catch (err) {
      const f = failureOf(err);
      if (err instanceof ApiError && err.code === 'Cancelled') this.notice = 'Cancelled; nothing was kept and the last result stays shown.';
      else this.failure = f;
    } finally {
      this.running = false;
      this.retryAt = null;
      // The call's answer is the last word on it, should its final event have been missed.
      if (this.progress?.state === 'classifying' || this.progress?.state === 'waiting') this.progress = null;
    }
  }

  async cancel(): Promise<void> {
    try {
      await this.api.call('samples.cancelClassify', { id: this.sampleId });
    } catch (err) {
      this.failure = failureOf(err);
    }
  }

  /** The platform's impulse (null) or an added model: the result kept for it shown. */
  async chooseSource(model: string | null): Promise<void> {
    if (model === this.source) return;
    this.failure = null;
    this.notice = null;
    this.source = model;
    await this.#showKept();
  }

  /** Models added or removed elsewhere (Settings → Models); returns the cleanup. */
  watchModels(): () => void {
    return this.api.on('models.changed', (list) => {
      this.models = list;
    });
  }

  /** A new variant or impulse id: remembered for the project, and the result kept for it shown. */
  async choose(patch: { variant?: ClassifyVariant; impulseId?: number | null }): Promise<void> {
    this.failure = null;
    this.notice = null;
    if (patch.variant !== undefined) this.variant = patch.variant;
    if (patch.impulseId !== undefined) this.impulseId = patch.impulseId;
    try {
      await this.api.call('samples.setClassifyOptions', patch);
    } catch (err) {
      // Not remembered (no project id yet): still usable for this sample.
      this.failure = failureOf(err);
    }
    await this.#showKept();
  }

  /** Progress of this sample's classifications, and results made elsewhere (after its upload); returns the cleanup. */
  subscribe(): () => void {
    return this.api.on('samples.classifyState', (s) => {
      if (s.id !== this.sampleId) return;
      this.progress = s;
      this.retryAt = s.state === 'waiting' && s.retryInMs !== null ? Date.now() + s.retryInMs : null;
      // Made after the upload (auto) for the variant and impulse shown: fetch its windows.
      if (s.state === 'done' && !this.running && this.source === null && s.variant === this.variant && s.impulseId === this.impulseId) void this.#showKept();
    });
  }

  async #showKept(): Promise<void> {
    const asked = ++this.#asked;
    try {
      const c = this.source === null
        ? await this.api.call('samples.classification', { id: this.sampleId, variant: this.variant, impulseId: this.impulseId })
        : await this.api.call('samples.classification', { id: this.sampleId, model: this.source });
      if (asked === this.#asked) this.#show(c);
    } catch (err) {
      if (asked === this.#asked) this.failure = failureOf(err);
    }
  }

  #show(c: Classification | null): void {
    const blockId = this.block?.id;
    this.result = c;
    // The same learn block stays picked when there is one of that id.
    const i = c && blockId !== undefined ? c.blocks.findIndex((b) => b.id === blockId) : -1;
    this.blockIndex = Math.max(0, i);
    this.focused = null;
    this.hovered = null;
  }
}
