import { CoreError } from '../../errors.js';
import type { ByteLink } from '../byte-link.js';
import { BaudJudge, type BaudProtocol, type BaudVerdict } from './baud-judge.js';

/** A chunk read at the rate found, with when it came: the reader starts from these. */
export interface HeardChunk {
  chunk: Buffer;
  atMs: number;
}

export interface BaudProbeResult {
  /** The rate the board's data came at; null when none did. */
  baud: number | null;
  /** What it read there: 'text' is clean text without data (a board printing no numbers). */
  protocol: BaudProtocol | 'text' | null;
  /** The rates tried before it, in order (each once, however many rounds). */
  tried: number[];
  /** Every rate read nothing, asked or not. */
  silent: boolean;
  /** AT was asked at every rate (the board was silent at all of them). */
  askedAt: boolean;
  /** What was read at the found rate while it was judged (only there: nothing read at another rate is in it). */
  heard: HeardChunk[];
  /** What each rate read last, for the sentence when nothing fits. */
  verdicts: Map<number, BaudVerdict['verdict']>;
}

export interface BaudProbeOptions {
  /** Rates in the order to try; the link is open at the first. */
  order: number[];
  /** Arrival times as the reader counts them (the core's clock). */
  now(): number;
  signal?: AbortSignal;
  /** A rate that read nothing this long is left (a board printing ≥ 10 lines/s shows within it). */
  quietMs?: number;
  /** Longest a rate reading clean text without data is listened to. */
  maxMs?: number;
  /** What comes this soon after a switch was read at the old rate, still in the driver's buffers. */
  settleMs?: number;
  /** Longest the whole search takes before it says what it read. */
  deadlineMs?: number;
  /** Ask a board silent at every rate whether it runs the platform's firmware (AT). Default true. */
  askAt?: boolean;
  atWaitMs?: number;
}

const POLL_MS = 15;

/**
 * Finds a board's baud rate from its own output: each rate in turn is listened to until the judge
 * says data (the rate), garbage or silence (the next), or it stops being sure. The order goes
 * round again until the deadline, so a board that printed a boot banner at one rate while the
 * search listened at its data's rate (an ESP8266: ROM at 74880, sketch at 115200) is found on the
 * next round. A board silent at every rate is asked (AT) at each. Nothing read at a wrong rate
 * leaves this function: `heard` holds only the found rate's bytes.
 */
export async function probeBaud(link: ByteLink, o: BaudProbeOptions): Promise<BaudProbeResult> {
  const quiet = o.quietMs ?? 220;
  const max = o.maxMs ?? 1500;
  const settle = o.settleMs ?? 25;
  const deadline = Date.now() + (o.deadlineMs ?? 10_000);
  let judge = new BaudJudge();
  let heard: HeardChunk[] = [];
  let ignoreUntil = 0;
  let current = o.order[0]!;
  const off = link.onData((chunk) => {
    if (Date.now() < ignoreUntil) return;
    judge.push(chunk);
    heard.push({ chunk, atMs: o.now() });
  });
  const tried: number[] = [];
  const verdicts = new Map<number, BaudVerdict['verdict']>();
  const switchTo = async (baud: number) => {
    if (baud !== current) {
      await link.setBaudRate(baud);
      current = baud;
      ignoreUntil = Date.now() + settle;
    }
    judge = new BaudJudge();
    heard = [];
    if (!tried.includes(baud)) tried.push(baud);
  };
  const listen = async (quietMs: number): Promise<BaudVerdict> => {
    const start = Date.now();
    for (;;) {
      if (o.signal?.aborted) throw new CoreError('Busy', `Finding the baud rate of ${link.path} was cancelled.`);
      await new Promise((r) => setTimeout(r, POLL_MS));
      const waited = Date.now() - start;
      const v = judge.verdict();
      if (v.verdict === 'data' || v.verdict === 'garbage') return v;
      if (waited < quietMs) continue;
      const final = judge.verdict(true);
      if (final.verdict !== 'text') return final;
      if (waited >= max || Date.now() > deadline) return judge.cleanLines() ? { verdict: 'data', protocol: 'lines' } : final;
    }
  };
  const found = (baud: number, protocol: BaudProbeResult['protocol']): BaudProbeResult => ({
    baud, protocol, tried: tried.filter((b) => b !== baud), silent: false, askedAt: false, heard, verdicts,
  });
  try {
    let text: number | null = null;
    for (let round = 0; Date.now() < deadline; round++) {
      for (const baud of o.order) {
        if (round > 0 && Date.now() >= deadline) break;
        await switchTo(baud);
        const v = await listen(quiet);
        verdicts.set(baud, v.verdict);
        if (v.verdict === 'data') return found(baud, v.protocol);
        if (v.verdict === 'text') text ??= baud;
      }
      if ([...verdicts.values()].every((v) => v === 'silent')) break;
    }
    const silent = [...verdicts.values()].every((v) => v === 'silent');
    if (silent && (o.askAt ?? true)) {
      // The platform's firmware says nothing until asked: ask at each rate.
      for (const baud of o.order) {
        await switchTo(baud);
        // After what the driver still holds from the old rate: the answer must not be ignored with it.
        await new Promise((r) => setTimeout(r, settle));
        judge.asked();
        await link.write('AT\r');
        const v = await listen(o.atWaitMs ?? 250);
        if (v.verdict === 'data') return found(baud, v.protocol);
      }
      return { baud: null, protocol: null, tried, silent: true, askedAt: true, heard: [], verdicts };
    }
    if (text !== null) {
      // Clean text at one rate and nothing better anywhere: the board's rate, printing no numbers.
      await switchTo(text);
      return found(text, 'text');
    }
    return { baud: null, protocol: null, tried, silent, askedAt: false, heard: [], verdicts };
  } finally {
    off();
  }
}

/** "115200: garbage, 9600: nothing, …" for the sentence when no rate fits. */
export function describeVerdicts(verdicts: Map<number, BaudVerdict['verdict']>): string {
  const words = { garbage: 'garbage', silent: 'nothing', text: 'text without readings', data: 'data' } as const;
  return [...verdicts].map(([b, v]) => `${b}: ${words[v]}`).join(', ');
}
