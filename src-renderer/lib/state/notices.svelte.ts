import { ApiError } from '../api/client.js';

export interface Notice {
  id: number;
  kind: 'error' | 'warning' | 'info';
  text: string;
}

/** Messages for the user. Every failed call ends up here with the core's own explanation. */
export class Notices {
  list = $state<Notice[]>([]);
  #next = 1;
  /** Errors stay until dismissed; confirmations of what just happened fade on their own. */
  static readonly INFO_MS = 8000;

  error(context: string, err: unknown): void {
    const text = err instanceof ApiError || err instanceof Error ? err.message : String(err);
    this.#push('error', `${context}: ${text}`);
  }

  /** Something the user must know that is not a failed call (e.g. the index was rebuilt); stays until dismissed. */
  warn(text: string): void {
    this.#push('warning', text);
  }

  info(text: string): void {
    this.#push('info', text);
  }

  dismiss(id: number): void {
    this.list = this.list.filter((n) => n.id !== id);
  }

  #push(kind: Notice['kind'], text: string) {
    const id = this.#next++;
    this.list = [...this.list.slice(-4), { id, kind, text }];
    if (kind === 'info') setTimeout(() => this.dismiss(id), Notices.INFO_MS);
  }
}
