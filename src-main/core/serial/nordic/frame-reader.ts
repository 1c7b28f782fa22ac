import { cobsDecode } from './cobs.js';
import { crc16Mcrf4xx } from './crc16.js';
import { decodeMessage, FRAME_ERRORS, type FrameError, type NordicMessage } from './messages.js';

/** A frame candidate longer than this (bytes between two 0x00) is garbage: the firmware's largest, 255 channels, is ~1.9 KB. */
export const MAX_FRAME_BYTES = 4096;

export interface FrameStats {
  frames: number;
  /** Frames whose trailer was a CRC-16 that matched; frames without one. */
  withCrc: number;
  withoutCrc: number;
  bad: Record<FrameError, number>;
  badTotal: number;
  lastBad: { kind: FrameError; hex: string } | null;
  /** Bytes thrown away: bad frames, an over-long run, the cut frame after opening mid-stream. */
  discardedBytes: number;
}

/**
 * Framing of Nordic's data forwarder: bytes → COBS frames (split on 0x00) → LEN(le16) | CBOR |
 * [CRC-16 le16] → messages. Whether frames carry a CRC is told from each frame's length. Garbage
 * costs only the frame candidates it touches, each counted once by kind; nothing a port sends
 * makes it throw or grow without bound.
 */
export class NordicFrameReader {
  readonly #acc = new Uint8Array(MAX_FRAME_BYTES);
  #accLen = 0;
  /** The current candidate ran past MAX_FRAME_BYTES: skip to the next 0x00. */
  #overflow = false;
  readonly #raw = new Uint8Array(MAX_FRAME_BYTES);
  readonly #stats: FrameStats = {
    frames: 0, withCrc: 0, withoutCrc: 0, bad: Object.fromEntries(FRAME_ERRORS.map((k) => [k, 0])) as Record<FrameError, number>, badTotal: 0, lastBad: null, discardedBytes: 0,
  };

  constructor(private readonly onMessage: (m: NordicMessage) => void) {}

  push(chunk: Uint8Array): void {
    let from = 0;
    for (;;) {
      const zero = chunk.indexOf(0, from);
      const end = zero === -1 ? chunk.length : zero;
      this.#append(chunk, from, end);
      if (zero === -1) return;
      this.#candidate();
      from = zero + 1;
    }
  }

  get stats(): FrameStats {
    return this.#stats;
  }

  #append(chunk: Uint8Array, from: number, end: number): void {
    const n = end - from;
    if (n === 0) return;
    if (this.#overflow || this.#accLen + n > MAX_FRAME_BYTES) {
      if (!this.#overflow) this.#stats.discardedBytes += this.#accLen;
      this.#stats.discardedBytes += n;
      this.#overflow = true;
      this.#accLen = 0;
      return;
    }
    this.#acc.set(chunk.subarray(from, end), this.#accLen);
    this.#accLen += n;
  }

  /** One chunk between two delimiters. */
  #candidate(): void {
    const len = this.#accLen;
    this.#accLen = 0;
    if (this.#overflow) {
      this.#overflow = false;
      return this.#bad('too-long', 0);
    }
    if (len === 0) return; // 0x00 0x00: nothing between, nothing lost
    const raw = this.#raw;
    const n = cobsDecode(this.#acc, 0, len, raw);
    if (n < 0) return this.#bad('cobs', len);
    if (n < 2) return this.#bad('short', len);
    const cborLen = raw[0]! | (raw[1]! << 8);
    let crc: boolean;
    if (n === 2 + cborLen) crc = false;
    else if (n === 4 + cborLen) crc = true;
    else return this.#bad('short', len);
    if (cborLen === 0) return this.#bad('short', len);
    if (crc && crc16Mcrf4xx(raw, 2, 2 + cborLen) !== (raw[2 + cborLen]! | (raw[3 + cborLen]! << 8))) return this.#bad('crc', len);
    const m = decodeMessage(raw, 2, 2 + cborLen);
    if (typeof m === 'string') return this.#bad(m, len);
    this.#stats.frames++;
    if (crc) this.#stats.withCrc++;
    else this.#stats.withoutCrc++;
    this.onMessage(m);
  }

  #bad(kind: FrameError, len: number): void {
    const s = this.#stats;
    s.bad[kind]++;
    s.badTotal++;
    s.discardedBytes += len;
    s.lastBad = { kind, hex: Buffer.from(this.#acc.subarray(0, Math.min(len, 24))).toString('hex') + (len > 24 ? '…' : '') };
  }
}
