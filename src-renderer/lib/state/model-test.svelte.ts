import type { ModelTestResult, SampleQueryFilter } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';
import { JobRunner } from './jobs.svelte.js';

export interface ModelTestRequest {
  models: string[];
  filter: SampleQueryFilter;
  strideMs: number | null;
  threshold: number;
  /** The samples tested, in words ("testing samples", "the 12 samples matching the search"), said above the result. */
  scope: string;
}

/**
 * A model test in the app (models.test): one at a time, with its progress and Cancel, and the last
 * result kept while the person moves between Settings and Samples (a matrix cell opens the Samples
 * view, and the matrix should still be there to click the next one).
 */
export class ModelTestState {
  readonly job: JobRunner;
  result = $state.raw<ModelTestResult | null>(null);
  /** What the shown result tested. */
  scope = $state('');
  error = $state<string | null>(null);
  /** Where the panel shows: Settings → Models or the Samples view; null: closed. */
  openIn = $state<'settings' | 'samples' | null>(null);
  /** The models of the test under way (its progress counts a sample once per model). */
  running = $state.raw<string[]>([]);
  /** The model a "Test" button of Settings → Models picked. */
  model = $state('');

  constructor(private readonly api: Api) {
    this.job = new JobRunner(api, 'test');
  }

  #focus = false;

  /** Opened by a button: the panel takes the keyboard (and scrolls into view) once it is there. */
  open(where: 'settings' | 'samples', model?: string): void {
    this.openIn = where;
    this.#focus = true;
    if (model) this.model = model;
  }

  /** True once after open(): a panel shown for another reason (a matrix cell followed to the Samples view) leaves the focus where it is. */
  takeFocus(): boolean {
    const f = this.#focus;
    this.#focus = false;
    return f;
  }

  async run(req: ModelTestRequest): Promise<void> {
    this.error = null;
    this.running = req.models;
    try {
      const r = await this.job.run((jobId) =>
        this.api.call('models.test', { jobId, models: req.models, filter: req.filter, threshold: req.threshold, ...(req.strideMs === null ? {} : { strideMs: req.strideMs }) }),
      );
      // Cancelled: the last result stays, and the core's words (what was kept) are in job.cancelled.
      if (r) {
        this.result = r;
        this.scope = req.scope;
      }
    } catch (err) {
      this.error = errorText(err);
    }
  }
}
