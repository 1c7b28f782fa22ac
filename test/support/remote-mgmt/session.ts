import { WebSocket } from 'ws';
import type { SampleAnswer } from '../ingestion-server/server.js';
import { encodeFrame } from './codec.js';
import type { MessageLog } from './message-log.js';
import type { ConnectedDevice, Encoding } from './types.js';

interface PendingAnswer {
  resolve: (a: SampleAnswer) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/** One WebSocket connection: its encoding, the device once its hello was accepted, and the sample requests awaiting an answer. */
export class Session {
  /** Fixed by the hello; null until one arrived. */
  encoding: Encoding | null = null;
  device: ConnectedDevice | null = null;
  /** The id the latest hello claimed, accepted or not. */
  claimedId: string | null = null;
  #pending: PendingAnswer[] = [];

  constructor(readonly ws: WebSocket, private readonly log: MessageLog) {}

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** The accepted device, else the id a hello claimed, so a refused exchange can be found by id too. */
  get logId(): string | null {
    return this.device?.deviceId ?? this.claimedId;
  }

  /** Before the hello there is no session encoding yet, so a reply follows the frame it answers. */
  send(message: Record<string, unknown>, fallback: Encoding = 'json'): void {
    if (!this.open) return;
    const encoding = this.encoding ?? fallback;
    this.ws.send(encodeFrame(encoding, message));
    this.log.push({ deviceId: this.logId, dir: 'out', encoding, message, at: performance.now() });
  }

  /** Answers arrive in request order, so the oldest waiting request takes the next one. */
  expectAnswer(timeoutMs: number): Promise<SampleAnswer> {
    return new Promise((resolve, reject) => {
      const entry: PendingAnswer = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.#pending = this.#pending.filter((p) => p !== entry);
          reject(new Error(`Device ${this.device?.deviceId ?? '?'} did not answer the sample request within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.#pending.push(entry);
    });
  }

  answer(a: SampleAnswer): void {
    const first = this.#pending.shift();
    if (!first) return;
    clearTimeout(first.timer);
    first.resolve(a);
  }

  failPending(reason: string): void {
    for (const p of this.#pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(new Error(reason));
    }
  }
}
