import type { ConnectionCheck, KeyStatus, Settings } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText } from '../format.js';

/** What the app holds now: the test's answer is about these. keyEdits counts keys saved or cleared. */
export interface TestBasis {
  settings: Settings | null;
  keys: KeyStatus | null;
  keyEdits: number;
}

/** What a test's answer depends on: the project, both URLs and the keys in force. */
function basis({ settings, keys, keyEdits }: TestBasis): string {
  return JSON.stringify([settings?.projectId, settings?.ingestionUrl, settings?.managementUrl, keys?.apiKey, keys?.apiKeySource, keys?.hmacKey, keyEdits]);
}

/**
 * "Test connection" (project.check), shared by the first-run checklist and Settings so both show
 * the same answer. The answer is shown only while the project, URLs and keys are the ones it was
 * given for: after a change it is old news, and `outdated` says so.
 */
export class ConnectionTest {
  running = $state(false);
  /** The call itself failed (e.g. the connection to the core dropped). */
  error = $state<string | null>(null);
  /** Which button asked (checklist or Settings): only that one says the outcome aloud. */
  askedFrom = $state<string | null>(null);
  #last = $state.raw<{ check: ConnectionCheck; basis: string } | null>(null);
  #inFlight: Promise<ConnectionCheck | null> | null = null;
  readonly #listeners = new Set<(check: ConnectionCheck) => void>();

  /** now: what the app holds (read reactively). */
  constructor(
    private readonly api: Api,
    private readonly now: () => TestBasis,
  ) {}

  /** The last answer, if still about the settings and keys in force. */
  get result(): ConnectionCheck | null {
    const last = this.#last;
    return last && last.basis === this.#basis() ? last.check : null;
  }

  /** There was an answer, but the settings or keys changed since. */
  get outdated(): boolean {
    return this.#last !== null && this.result === null;
  }

  /** Told of every answer, wherever the test was asked from; returns the unsubscribe (for an $effect). */
  onChecked(fn: (check: ConnectionCheck) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** One test at a time: a second press while it runs waits for the same answer. */
  run(from = ''): Promise<ConnectionCheck | null> {
    if (!this.#inFlight) this.askedFrom = from;
    this.#inFlight ??= this.#run().finally(() => (this.#inFlight = null));
    return this.#inFlight;
  }

  async #run(): Promise<ConnectionCheck | null> {
    this.running = true;
    this.error = null;
    const asked = this.#basis();
    try {
      const check = await this.api.call('project.check', {});
      this.#last = { check, basis: asked };
      for (const fn of this.#listeners) fn(check);
      return check;
    } catch (err) {
      this.error = errorText(err);
      return null;
    } finally {
      this.running = false;
    }
  }

  #basis(): string {
    return basis(this.now());
  }
}
