import { redactSecrets } from './redact.js';

/**
 * Every key this process has held (read from or written to the keychain). The app's logger runs
 * each logged string through {@link redact}, so a key that reaches a log call by mistake (a URL, an
 * error text, a field) is written to stderr and the log file as «redacted». Keys are only ever
 * added, never removed: a key cleared a minute ago is still a secret in a log line.
 */
export class KnownSecrets {
  readonly #secrets = new Set<string>();
  #redact: (text: string) => string = (t) => t;

  add(secret: string | null | undefined): void {
    if (!secret || this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    const all = [...this.#secrets];
    this.#redact = (text) => redactSecrets(text, all);
  }

  redact(text: string): string {
    return this.#redact(text);
  }

  get size(): number {
    return this.#secrets.size;
  }
}
