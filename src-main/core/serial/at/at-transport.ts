import { CoreError } from '../../errors.js';
import { AtCommandError, AtTimeoutError, commandVerb, maskDeviceText, type AtFailureKind } from './at-errors.js';
import { LineSplitter } from './at-lines.js';

/**
 * The duplex byte stream the AT protocol runs over. A real serial port in the app and in the
 * integration tests, a fake in unit tests. The `ByteLink` of `../byte-link.ts` fits as is.
 */
export interface BytePort {
  write(data: Buffer): Promise<void>;
  onData(cb: (chunk: Buffer) => void): () => void;
  /** Needed only for the fast transfer rate some boards offer for reading samples back. */
  setBaudRate?(baud: number): Promise<void>;
  onClose?(cb: (info: { disconnected: boolean; error: Error | null }) => void): () => void;
}

export interface AtCommandOptions {
  timeoutMs?: number;
  /** Every line the board prints for this command as it arrives (the echo excluded). */
  onLine?: (line: string) => void;
  /** Values in the command or its answer that must not appear in errors (keys). */
  secrets?: readonly string[];
}

export interface AtTransportOptions {
  /**
   * The official daemon writes commands 5 bytes at a time, 20 ms apart: some boards read their
   * UART byte by byte from a small FIFO and drop what overflows while they echo.
   */
  writeChunkBytes?: number;
  writePauseMs?: number;
  defaultTimeoutMs?: number;
  /** The AT rate, restored after a fast transfer. */
  baudRate?: number;
}

/** What one command has received so far. */
class Exchange {
  readonly lines: string[] = [];
  prompt = false;
  echo = false;
  failure: unknown = null;
  lastDataAt = Date.now();
  constructor(readonly cmd: string, readonly onLine: ((line: string) => void) | undefined) {}
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How long sync() waits for the echo of its 'b' after a prompt that came before it. */
const ECHO_GRACE_MS = 500;

/**
 * Line- and prompt-oriented transport for the official firmware's AT server: one command at a
 * time, each sent as `cmd\r` and answered by lines ending in the `> ` prompt.
 */
export class AtTransport {
  readonly #port: BytePort;
  readonly #chunk: number;
  readonly #pause: number;
  readonly #timeout: number;
  readonly #baud: number;
  readonly #splitter = new LineSplitter();
  readonly #unsubscribe: Array<() => void> = [];
  #ex: Exchange | null = null;
  #wake: (() => void) | null = null;
  #closed: CoreError | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(port: BytePort, opts: AtTransportOptions = {}) {
    this.#port = port;
    this.#chunk = Math.max(1, opts.writeChunkBytes ?? 5);
    this.#pause = opts.writePauseMs ?? 20;
    this.#timeout = opts.defaultTimeoutMs ?? 5_000;
    this.#baud = opts.baudRate ?? 115_200;
    this.#unsubscribe.push(port.onData((chunk) => this.#onData(chunk)));
    if (port.onClose) this.#unsubscribe.push(port.onClose((info) => this.#onClose(info.disconnected)));
  }

  get canSwitchBaudRate(): boolean {
    return typeof this.#port.setBaudRate === 'function';
  }

  /** Sends `cmd\r` and resolves with the non-empty lines before the prompt, echo removed. */
  command(cmd: string, opts: AtCommandOptions = {}): Promise<string[]> {
    return this.#exclusive(async () => {
      const ex = await this.#start(cmd, opts.onLine);
      await this.#until(ex, () => ex.prompt, opts.timeoutMs ?? this.#timeout);
      return this.#finish(ex, opts.secrets);
    });
  }

  /**
   * A command ending in `,y` (AT 1.6+): the board says `OK`, switches to `baud`, sends its data,
   * says `OK` again and switches back. The marker lines are part of the result; callers drop them.
   */
  commandAtBaud(cmd: string, baud: number, opts: AtCommandOptions = {}): Promise<string[]> {
    const setBaud = this.#port.setBaudRate?.bind(this.#port);
    if (!setBaud) return Promise.reject(new CoreError('Internal', 'This port cannot change its baud rate'));
    return this.#exclusive(async () => {
      const timeout = opts.timeoutMs ?? this.#timeout;
      const ex = await this.#start(cmd, opts.onLine);
      await this.#until(ex, () => ex.prompt || okLine(ex, 0) >= 0, Math.min(timeout, this.#timeout));
      if (ex.prompt) return this.#finish(ex, opts.secrets); // answered at the AT rate: usually an error
      const first = okLine(ex, 0);
      await setBaud(baud);
      let restored = false;
      try {
        await this.#until(ex, () => ex.prompt || okLine(ex, first + 1) >= 0, timeout);
        await setBaud(this.#baud);
        restored = true;
      } finally {
        // Never leave the port at the transfer rate: every later command would be garbled.
        if (!restored) await setBaud(this.#baud).catch(() => undefined);
      }
      await this.#until(ex, () => ex.prompt, timeout);
      return this.#finish(ex, opts.secrets);
    });
  }

  /**
   * Sends `b\r` (stops a running inference; harmless otherwise) and waits for the prompt, then
   * lets whatever else the board prints settle and throws it away.
   */
  sync(opts: { timeoutMs?: number; settleMs?: number } = {}): Promise<void> {
    return this.#exclusive(async () => {
      const timeout = opts.timeoutMs ?? this.#timeout;
      const ex = await this.#start('b', undefined);
      await this.#until(ex, () => ex.prompt, timeout);
      // A prompt before our 'b' was echoed can be the boot banner's, the answer to 'b' still on its
      // way (a loaded host saw it land on the next command); a running inference answers without
      // an echo ("Inferencing stopped by user"), so that is waited for a little, not required.
      if (!ex.echo && !ex.lines.some((l) => /stopped|\(b\)/i.test(l))) {
        await this.#until(ex, () => ex.echo && ex.prompt, ECHO_GRACE_MS).catch((err: unknown) => {
          if (!(err instanceof AtTimeoutError)) throw err;
        });
      }
      const settle = opts.settleMs ?? 100;
      const end = Date.now() + timeout;
      for (let wait = settle; wait > 0 && Date.now() < end; wait = ex.lastDataAt + settle - Date.now()) {
        await sleep(wait);
        if (this.#closed) throw this.#closed;
      }
      this.#ex = null;
    });
  }

  /** Stops listening; a command in flight fails with Disconnected. */
  close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
    this.#closed ??= new CoreError('Disconnected', 'The connection to the board was closed.');
    this.#wake?.();
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      try {
        return await fn();
      } finally {
        this.#ex = null;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #start(cmd: string, onLine: ((line: string) => void) | undefined): Promise<Exchange> {
    if (this.#closed) throw this.#closed;
    // Whatever arrived before this command (a late prompt, log lines) belongs to nobody.
    this.#splitter.reset();
    const ex = new Exchange(cmd, onLine);
    this.#ex = ex;
    const data = Buffer.from(cmd + '\r', 'latin1');
    for (let i = 0; i < data.length; i += this.#chunk) {
      if (i > 0 && this.#pause > 0) await sleep(this.#pause);
      if (this.#closed) throw this.#closed;
      try {
        await this.#port.write(data.subarray(i, i + this.#chunk));
      } catch (err) {
        throw this.#closed ?? (err instanceof CoreError ? err : new CoreError('Disconnected', `Could not write to the board: ${(err as Error).message}`));
      }
    }
    return ex;
  }

  #onData(chunk: Buffer): void {
    const ex = this.#ex;
    if (!ex) return;
    ex.lastDataAt = Date.now();
    for (const line of this.#splitter.push(chunk.toString('latin1'))) {
      // The firmware echoes what we type; after stale prompts the echo follows "> " (or several).
      // What came before our echo (a late answer to the command before, a boot banner and its
      // prompt) was printed before the board read this command: it is not this command's.
      if (!ex.echo && line.replace(/^(?:> )+/, '').trimEnd() === ex.cmd) {
        ex.echo = true;
        ex.lines.length = 0;
        ex.prompt = false;
      } else if (ex.onLine && ex.failure === null) {
        try {
          ex.onLine(line);
        } catch (err) {
          ex.failure = err;
        }
      }
      ex.lines.push(line);
    }
    // A prompt counts only after a line break: the board answers our "\r" with "\r\n" before
    // anything else, so a "> " seen earlier is a leftover from before this command.
    if (ex.lines.length > 0 && this.#splitter.tailIsPrompt()) ex.prompt = true;
    this.#wake?.();
  }

  #onClose(disconnected: boolean): void {
    this.#closed ??= disconnected
      ? new CoreError('Disconnected', 'The board was disconnected. Plug it back in and connect again.', { disconnected: true })
      : new CoreError('Disconnected', 'The serial port was closed.', { disconnected: false });
    this.#wake?.();
  }

  #until(ex: Exchange, ready: () => boolean, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const done = (err: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (this.#wake === check) this.#wake = null;
        if (err) reject(err);
        else resolve();
      };
      const check = () => {
        if (this.#closed) done(this.#closed);
        else if (ex.failure !== null) done(ex.failure);
        else if (ready()) done(null);
      };
      const timer = setTimeout(() => done(new AtTimeoutError(commandVerb(ex.cmd), timeoutMs)), timeoutMs);
      this.#wake = check;
      check();
    });
  }

  #finish(ex: Exchange, secrets: readonly string[] = []): string[] {
    this.#ex = null;
    const lines = (ex.echo ? ex.lines.slice(1) : ex.lines).map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
    for (const line of lines) {
      const kind = failureKind(line.trim());
      if (kind) throw new AtCommandError(kind, commandVerb(ex.cmd), maskDeviceText(line.trim(), secrets));
    }
    return lines;
  }
}

function failureKind(line: string): AtFailureKind | null {
  if (line.startsWith('ERR:')) return 'device-error';
  if (/Not a valid AT command|^Command not found!|^No handler for/.test(line)) return 'unknown-command';
  return null;
}

/** Index of the first line that is just "OK" (the fast-transfer markers), from `from` on. */
function okLine(ex: Exchange, from: number): number {
  for (let i = Math.max(from, ex.echo ? 1 : 0); i < ex.lines.length; i++) {
    if (ex.lines[i]!.trim() === 'OK') return i;
  }
  return -1;
}
