import type { BytePort } from '../../../src-main/core/serial/at/at-transport.js';

type CloseInfo = { disconnected: boolean; error: Error | null };

/**
 * An in-process stand-in for a board running the AT firmware, for unit tests: it echoes what the
 * host types, answers each command line with `reply(cmd)` followed by the prompt, and cuts what
 * it sends into chunks chosen by the test. Delivery is asynchronous and in order, like a port.
 */
export class FakeAtPort implements BytePort {
  readonly writes: Buffer[] = [];
  readonly commands: string[] = [];
  readonly bauds: number[] = [];
  /** What the board prints after "\r\n" for a command; the prompt is added. Null: stay silent (the test speaks). */
  reply: (cmd: string) => string | null = () => '';
  /** How outgoing text is cut into chunks (each delivered in its own macrotask). */
  chunking: (text: string) => string[] = (t) => [t];
  echo = true;
  failWrites = false;
  readonly #line: string[] = [];
  readonly #data = new Set<(chunk: Buffer) => void>();
  readonly #close = new Set<(info: CloseInfo) => void>();

  async write(data: Buffer): Promise<void> {
    if (this.failWrites) throw new Error('EIO: write failed');
    this.writes.push(Buffer.from(data));
    for (const ch of data.toString('latin1')) {
      if (ch !== '\r') {
        this.#line.push(ch);
        if (this.echo) this.send(ch);
        continue;
      }
      const cmd = this.#line.splice(0).join('');
      this.commands.push(cmd);
      const answer = this.reply(cmd);
      if (answer !== null) this.send(`\r\n${answer}> `);
    }
  }

  onData(cb: (chunk: Buffer) => void): () => void {
    this.#data.add(cb);
    return () => this.#data.delete(cb);
  }

  onClose(cb: (info: CloseInfo) => void): () => void {
    this.#close.add(cb);
    return () => this.#close.delete(cb);
  }

  async setBaudRate(baud: number): Promise<void> {
    this.bauds.push(baud);
  }

  /** Queues text for delivery, cut by `chunking`. */
  send(text: string): void {
    for (const piece of this.chunking(text)) setImmediate(() => this.emit(piece));
  }

  /** Delivers text now, as one chunk. */
  emit(text: string): void {
    const chunk = Buffer.from(text, 'latin1');
    for (const cb of [...this.#data]) cb(chunk);
  }

  drop(disconnected = true): void {
    for (const cb of [...this.#close]) cb({ disconnected, error: disconnected ? new Error('disconnected') : null });
  }

  get sent(): string {
    return Buffer.concat(this.writes).toString('latin1');
  }

  get listeners(): number {
    return this.#data.size + this.#close.size;
  }
}

/** Settles pending deliveries (each chunk goes out in its own setImmediate). */
export const flush = async (rounds = 5): Promise<void> => {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
};
