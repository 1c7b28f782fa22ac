import { afterEach, describe, expect, it } from 'vitest';
import { openPtyPair, type PtyPair } from '../support/boards/pty.js';
import { recordFuzzBoard } from '../support/boards/fuzz-record.mjs';
import { assertBuilt, CLI } from '../support/cli.js';

/**
 * A board printing good readings mixed with text, NaNs, wrong widths, binary, NUL runs, over-long
 * lines, blank lines, lone \r and bursts, through a real PTY into `capture-desk record serial`:
 * the CLI neither crashes nor grows, the sample holds every good line sent while it recorded, in
 * order and value for value, and the rejected lines are counted by reason exactly as the board
 * produced them. The long run (30 s at 1 MB/s) is the "fuzz" bench section.
 *
 * One fixed seed and one new seed per run; a failure names its seed: FUZZ_SEED=N reruns it.
 */
const SEEDS = process.env.FUZZ_SEED ? [Number(process.env.FUZZ_SEED)] : [1, Date.now() % 1_000_000];
const RATE = 200_000; // bytes/s
const SECONDS = 3;
const MB = 1024 * 1024;

let pty: PtyPair | null = null;
afterEach(async () => {
  await pty?.close();
  pty = null;
});

describe('capture-desk record serial with a fuzzed PTY board', () => {
  for (const seed of SEEDS) {
    it(`keeps every good line and counts every rejection by reason (seed ${seed}, ${RATE / 1000} kB/s for ${SECONDS} s)`, async () => {
      assertBuilt();
      console.log(`serial fuzz: seed ${seed} (rerun with FUZZ_SEED=${seed})`);
      pty = await openPtyPair();
      const r = await recordFuzzBoard({ cli: CLI, hostPath: pty.hostPath, boardPath: pty.boardPath, seed, rate: RATE, seconds: SECONDS, longChance: 1 / 5000, bursts: true });
      const at = `seed ${seed}`;
      expect(r.exit, `${at}: ${r.stderr}`).toEqual({ code: 0, signal: null });

      // The board really misbehaved in every way, at about the rate asked.
      const e = r.board.expected;
      for (const reason of ['text', 'nan', 'width', 'garbage'] as const) expect(e.bad[reason], `${at}: ${reason}`).toBeGreaterThan(50);
      expect(r.board.counts.nul, at).toBeGreaterThan(50);
      expect(e.blank, at).toBeGreaterThan(50);
      expect(r.board.fuzzBytes, at).toBeGreaterThan(RATE * SECONDS * 0.8);

      // Every good line from the first recorded one on, none missing, none altered; and the
      // recording began before the fuzz did, so all of the fuzz's good lines are in.
      expect(r.rows.first, at).not.toBeNull();
      expect(r.rows.first!, at).toBeLessThanOrEqual(r.rows.fuzzFirst);
      expect({ missing: r.rows.missing, wrong: r.rows.wrong, firstWrong: r.rows.firstWrong }, at).toEqual({ missing: 0, wrong: 0, firstWrong: null });
      expect(r.sample!.rows, at).toBe(r.rows.recorded);

      // Rejections: the sample's count is the fuzz's; by reason (counted since the port opened)
      // they match too, plus at most the one line cut by connecting mid-line.
      const total = Object.values(e.bad).reduce((a, b) => a + b, 0);
      expect(r.rejected.total, at).toBe(total);
      const { partial = 0, ...byReason } = r.rejected.byReason;
      expect(byReason, at).toEqual(Object.fromEntries(Object.entries(e.bad).filter(([, n]) => n > 0)));
      expect(partial, at).toBeLessThanOrEqual(1);
      // The sample keeps them by reason too, counted over the recording only: exactly the fuzz's.
      expect(r.rejected.inSample, at).toEqual(Object.fromEntries(Object.entries(e.bad).filter(([, n]) => n > 0)));

      // Bounded memory: the recorder streams rows to disk, the framing holds at most one 64 KiB line.
      const growth = (r.rss.maxDuring - r.rss.base!) / MB;
      console.log(`serial fuzz seed ${seed}: ${r.rows.recorded} rows, ${total} rejected, RSS ${(r.rss.base! / MB).toFixed(0)} MB + ${growth.toFixed(1)} MB while recording`);
      expect(growth, at).toBeLessThan(40);
    }, 60_000);
  }
});
