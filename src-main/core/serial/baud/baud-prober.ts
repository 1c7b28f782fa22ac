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
  /**
   * A board printing seldom (a reading every 2 s): once a whole round heard it at only a few rates
   * (its lines fell into their turns), each rate waits this long for the board's next bytes, and
   * clean text is listened to this long after them for a whole line. Default 5 s.
   */
  slowMs?: number;
  /** Longest the whole search takes once the board is known to print seldom. Default 45 s. */
  slowDeadlineMs?: number;
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
  const slowMs = o.slowMs ?? 5000;
  const began = Date.now();
  let deadline = began + (o.deadlineMs ?? 10_000);
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
  /**
   * Listens at the current rate. `slow`: the board prints seldom, so the rate waits up to slowMs
   * for its first bytes and is judged a quiet time after them, clean text up to slowMs after them.
   */
  const listen = async (quietMs: number, slow = false): Promise<BaudVerdict> => {
    const start = Date.now();
    let firstAt: number | null = null;
    for (;;) {
      if (o.signal?.aborted) throw new CoreError('Busy', `Finding the baud rate of ${link.path} was cancelled.`);
      await new Promise((r) => setTimeout(r, POLL_MS));
      if (firstAt === null && judge.bytes > 0) firstAt = Date.now();
      const from = slow ? (firstAt ?? start) : start;
      const waited = Date.now() - from;
      const v = judge.verdict();
      if (v.verdict === 'data' || v.verdict === 'garbage') return v;
      // A seldom-printing board's whole clean line is the proof it can give (as at a rate's end below).
      if (slow && judge.cleanLines()) return { verdict: 'data', protocol: 'lines' };
      if (slow && firstAt === null ? waited < slowMs && Date.now() < deadline : waited < quietMs) continue;
      const final = judge.verdict(true);
      if (final.verdict !== 'text') return final;
      if (waited >= (slow ? slowMs : max) || Date.now() > deadline) return judge.cleanLines() ? { verdict: 'data', protocol: 'lines' } : final;
    }
  };
  const found = (baud: number, protocol: BaudProbeResult['protocol']): BaudProbeResult => ({
    baud, protocol, tried: tried.filter((b) => b !== baud), silent: false, askedAt: false, heard, verdicts,
  });
  let text: number | null = null;
  let slow = false;
  /** Rounds through the order until a rate reads data (its result) or the deadline (null). */
  const rounds = async (): Promise<BaudProbeResult | null> => {
    for (let round = 0; Date.now() < deadline; round++) {
      for (const baud of o.order) {
        if (round > 0 && Date.now() >= deadline) break;
        await switchTo(baud);
        const v = await listen(quiet, slow);
        verdicts.set(baud, v.verdict);
        if (v.verdict === 'data') return found(baud, v.protocol);
        if (v.verdict === 'text') text ??= baud;
      }
      const heardAt = [...verdicts.values()].filter((v) => v !== 'silent').length;
      if (heardAt === 0) break;
      // Heard at only a few rates in a whole round: not a board at a rate we do not try (that
      // reads garbage nearly everywhere) but one whose lines are seconds apart and fell into a few
      // rates' turns. From here each rate waits for the board to speak.
      if (round === 0 && heardAt * 3 <= o.order.length) goSlow();
    }
    return null;
  };
  const goSlow = () => {
    slow = true;
    deadline = Math.max(deadline, began + (o.slowDeadlineMs ?? 45_000));
  };
  try {
    const streamed = await rounds();
    if (streamed) return streamed;
    const silent = [...verdicts.values()].every((v) => v === 'silent');
    if (silent && (o.askAt ?? true)) {
      // The platform's firmware says nothing until asked: ask at each rate.
      let heardWhileAsking = false;
      for (const baud of o.order) {
        await switchTo(baud);
        // After what the driver still holds from the old rate: the answer must not be ignored with it.
        await new Promise((r) => setTimeout(r, settle));
        judge.asked();
        await link.write('AT\r');
        const v = await listen(o.atWaitMs ?? 250);
        if (v.verdict === 'data') return found(baud, v.protocol);
        if (v.verdict !== 'silent') heardWhileAsking = true;
      }
      if (!heardWhileAsking) return { baud: null, protocol: null, tried, silent: true, askedAt: true, heard: [], verdicts };
      // Not an AT board, but not silent either: a board printing seldom whose lines missed the
      // first round (or fell where a wrong rate reads nothing). Each rate now waits for it.
      goSlow();
      const late = await rounds();
      if (late) return late;
    }
    if (text !== null) {
      // Clean text at one rate and nothing better anywhere: the board's rate, printing no numbers.
      await switchTo(text);
      return found(text, 'text');
    }
    const silentAll = [...verdicts.values()].every((v) => v === 'silent');
    return { baud: null, protocol: null, tried, silent: silentAll, askedAt: false, heard: [], verdicts };
  } finally {
    off();
  }
}

/** "115200: garbage, 9600: nothing, …" for the sentence when no rate fits. */
export function describeVerdicts(verdicts: Map<number, BaudVerdict['verdict']>): string {
  const words = { garbage: 'garbage', silent: 'nothing', text: 'text without readings', data: 'data' } as const;
  return [...verdicts].map(([b, v]) => `${b}: ${words[v]}`).join(', ');
}
