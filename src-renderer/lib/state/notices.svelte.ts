import { ApiError } from '../api/client.js';

/** A button on a notice that does what it asks for (e.g. "Show flagged samples"); it closes the notice. */
export interface NoticeAction {
  label: string;
  run: () => void;
}

export interface Notice {
  id: number;
  kind: 'error' | 'warning' | 'info';
  text: string;
  /** How many times this text was said while shown: a repeat is counted, not stacked. */
  count: number;
  /** Stays until dismissed: errors, warnings and anything that asks for an action. */
  sticky: boolean;
  action: NoticeAction | null;
}

export interface InfoOptions {
  action?: NoticeAction;
  /** Something the person has to act on although nothing failed (e.g. samples held back). */
  sticky?: boolean;
}

/**
 * Messages for the user in the corner. Information (what just happened) fades after a few seconds
 * and is said once to screen readers through `spoken`; errors, warnings and notices that ask for
 * an action stay until dismissed. Nothing fades while the pointer or the keyboard is on the
 * notices (`hold`), so a notice being read or reached for stays put. Every failed call ends up here
 * with the core's own explanation.
 */
export class Notices {
  static readonly INFO_MS = 5000;
  /** More than this and the oldest fading notice goes first; sticky ones only when none fades. */
  static readonly MAX = 5;
  list = $state.raw<Notice[]>([]);
  /** The latest information, for a polite live region (errors are announced as alerts where shown). */
  spoken = $state('');
  #next = 1;
  #held = false;
  #flip = false;
  readonly #timers = new Map<number, ReturnType<typeof setTimeout>>();

  error(context: string, err: unknown, action?: NoticeAction): void {
    const text = err instanceof ApiError || err instanceof Error ? err.message : String(err);
    this.#push('error', `${context}: ${text}`, true, action ?? null);
  }

  /** Something the user must know that is not a failed call (e.g. the index was rebuilt); stays until dismissed. */
  warn(text: string, action?: NoticeAction): void {
    this.#push('warning', text, true, action ?? null);
  }

  info(text: string, opts: InfoOptions = {}): void {
    this.#push('info', text, opts.sticky === true || opts.action !== undefined, opts.action ?? null);
    // A trailing no-break space on every other message: the same words twice are said twice.
    this.#flip = !this.#flip;
    this.spoken = this.#flip ? text : `${text}\u00a0`;
  }

  dismiss(id: number): void {
    this.#stopTimer(id);
    this.list = this.list.filter((n) => n.id !== id);
  }

  dismissAll(): void {
    for (const n of this.list) this.#stopTimer(n.id);
    this.list = [];
  }

  /** Runs a notice's action and closes it. */
  act(n: Notice): void {
    this.dismiss(n.id);
    n.action?.run();
  }

  /** The pointer or focus came onto the notices: nothing fades until `release`. */
  hold(): void {
    this.#held = true;
    for (const id of [...this.#timers.keys()]) this.#stopTimer(id);
  }

  /** Fading notices get their full time again once nobody is on them. */
  release(): void {
    this.#held = false;
    for (const n of this.list) if (!n.sticky) this.#startTimer(n.id);
  }

  /** Stops every timer (the app is closing). */
  dispose(): void {
    for (const id of [...this.#timers.keys()]) this.#stopTimer(id);
  }

  #push(kind: Notice['kind'], text: string, sticky: boolean, action: NoticeAction | null): void {
    const same = this.list.find((n) => n.kind === kind && n.text === text);
    if (same) this.dismiss(same.id);
    const notice: Notice = { id: this.#next++, kind, text, count: (same?.count ?? 0) + 1, sticky: sticky || (same?.sticky ?? false), action: action ?? same?.action ?? null };
    let list = [...this.list, notice];
    while (list.length > Notices.MAX) {
      const drop = list.find((n) => !n.sticky && n !== notice) ?? list[0]!;
      this.#stopTimer(drop.id);
      list = list.filter((n) => n !== drop);
    }
    this.list = list;
    if (!notice.sticky) this.#startTimer(notice.id);
  }

  #startTimer(id: number): void {
    if (this.#held) return;
    this.#stopTimer(id);
    this.#timers.set(
      id,
      setTimeout(() => {
        this.#timers.delete(id);
        this.list = this.list.filter((n) => n.id !== id);
      }, Notices.INFO_MS),
    );
  }

  #stopTimer(id: number): void {
    const t = this.#timers.get(id);
    if (t !== undefined) clearTimeout(t);
    this.#timers.delete(id);
  }
}
