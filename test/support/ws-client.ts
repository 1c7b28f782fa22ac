import WebSocket from 'ws';
import { wireCodec } from '../../src-main/server/cbor.js';
import type { ServerMessage } from '../../src-main/core/wire.js';

/** A minimal contract client over the real WebSocket, as the renderer's transport speaks it. */
export class TestWsClient {
  readonly messages: ServerMessage[] = [];
  #waiters: Array<() => void> = [];
  #nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      this.messages.push(wireCodec.decode(data) as ServerMessage);
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  static connect(url: string): Promise<TestWsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new TestWsClient(ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  async call(method: string, input: unknown): Promise<Extract<ServerMessage, { t: 'result' }>['result']> {
    const id = this.#nextId++;
    this.ws.send(wireCodec.encode({ t: 'call', id, method, input }));
    const m = await this.waitFor((x) => x.t === 'result' && x.id === id);
    return (m as Extract<ServerMessage, { t: 'result' }>).result;
  }

  sendRaw(data: Buffer | string): void {
    this.ws.send(data);
  }

  async waitFor(pred: (m: ServerMessage) => boolean, timeoutMs = 5000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.messages.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error('timed out waiting for a server message');
      await new Promise<void>((r) => {
        this.#waiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}
