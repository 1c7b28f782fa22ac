import type { KeyStatus, Settings } from '../../../src-main/core/contract/contract.js';
import { setupNeeded } from '../setup/checklist.js';

const HIDDEN_KEY = 'capture-desk.setup-guide.hidden.v1';

/** localStorage's part that is used (typed here: tests run this file under Node). */
type GuideStorage = { getItem(key: string): string | null; setItem(key: string, value: string): void; removeItem(key: string): void };

/**
 * Whether the first-run checklist is shown. It opens by itself once, at start, when the project
 * id or the API key is missing, unless the person hid it before; it closes when done or hidden, and
 * the `?` menu opens it again at any time.
 */
export class SetupGuide {
  open = $state(false);
  #decided = false;

  constructor(private readonly storage: GuideStorage | null = (globalThis as { localStorage?: GuideStorage }).localStorage ?? null) {}

  /** Called as keys and settings arrive; decides once, when both are known. */
  consider(keys: KeyStatus | null, settings: Settings | null): void {
    if (this.#decided || !keys || !settings) return;
    this.#decided = true;
    if (setupNeeded(keys, settings) && !this.#hiddenBefore()) this.open = true;
  }

  show(): void {
    this.#decided = true;
    this.open = true;
    this.#remember(false);
  }

  /** "Hide": not shown by itself again (the ? menu still opens it). */
  hide(): void {
    this.open = false;
    this.#remember(true);
  }

  /** Everything works: the checklist goes away. */
  finish(): void {
    this.open = false;
  }

  #hiddenBefore(): boolean {
    try {
      return this.storage?.getItem(HIDDEN_KEY) === '1';
    } catch {
      return false;
    }
  }

  #remember(hidden: boolean): void {
    try {
      if (hidden) this.storage?.setItem(HIDDEN_KEY, '1');
      else this.storage?.removeItem(HIDDEN_KEY);
    } catch {
      // Storage off or full: the checklist may show again at the next start; nothing else is lost.
    }
  }
}
