import { describe, expect, it } from 'vitest';
import type { ModelEntry } from '../../src-main/core/contract/model-schema.js';
import { ModelPool } from '../../src-main/core/model/model-pool.js';
import type { ModelSession } from '../../src-main/core/model/model-session.js';

/** Stand-in sessions: only what the pool touches (classified, close), numbered in the order started. */
function opener() {
  const started: Array<{ n: number; closed: boolean; classified: number }> = [];
  const open = async (): Promise<ModelSession> => {
    const s = { n: started.length, closed: false, classified: 0, close: async () => void (s.closed = true) };
    started.push(s);
    return s as unknown as ModelSession;
  };
  return { started, open };
}
const entry = { name: 'm' } as ModelEntry;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ModelPool', () => {
  it('runs each item whole on one session, two at a time a session (one read while the other runs), and answers in the items\' order', async () => {
    const { started, open } = opener();
    const pool = ModelPool.opening(entry, open, 3);
    const running = new Map<number, number>();
    let most = 0;
    const ran: Array<[number, number]> = [];
    // Earlier items take longer: they finish after later ones.
    const out = await pool.map([50, 40, 30, 20, 10, 0, 5, 5], async (session, ms, i) => {
      const n = (session as unknown as { n: number }).n;
      running.set(n, (running.get(n) ?? 0) + 1);
      most = Math.max(most, running.get(n)!);
      await sleep(ms);
      running.set(n, running.get(n)! - 1);
      ran.push([i, n]);
      return `item ${i}`;
    });
    expect(out).toEqual(['item 0', 'item 1', 'item 2', 'item 3', 'item 4', 'item 5', 'item 6', 'item 7']);
    expect(started).toHaveLength(3);
    expect(most).toBe(2);
    expect(ran.map(([i]) => i)).not.toEqual([0, 1, 2, 3, 4, 5, 6, 7]); // they did finish out of order
    await pool.close();
    expect(started.every((s) => s.closed)).toBe(true);
  });

  it('starts no more sessions than items, none for none, and at most 16', async () => {
    const a = opener();
    const pool = ModelPool.opening(entry, a.open, 4);
    expect(await pool.map([], async () => 1)).toEqual([]);
    expect(a.started).toHaveLength(0);
    await pool.map([1, 2], async (_s, x) => x);
    expect(a.started).toHaveLength(2);
    expect(ModelPool.opening(entry, a.open, 99).workers).toBe(16);
    expect(ModelPool.opening(entry, a.open, 0).workers).toBe(1);
  });

  it('starts no new item once one failed; the running ones finish; the first error is thrown', async () => {
    const { open } = opener();
    const pool = ModelPool.opening(entry, open, 1);
    const began: number[] = [];
    const run = pool.map([0, 1, 2, 3, 4], async (_s, x) => {
      began.push(x);
      if (x === 0) throw new Error('item 0 failed');
      await sleep(20);
      return x;
    });
    await expect(run).rejects.toThrow('item 0 failed');
    expect(began).toEqual([0, 1]);
  });

  it('warm() starts every worker before the items are known; map() uses them; a warmed pool whose items were all kept used none and closes them', async () => {
    const a = opener();
    const pool = ModelPool.opening(entry, a.open, 3);
    pool.warm();
    pool.warm(); // once
    await sleep(0);
    expect(a.started).toHaveLength(3);
    expect(await pool.map([1, 2], async (_s, x) => x * 2)).toEqual([2, 4]);
    expect(a.started).toHaveLength(3); // no more started for the items
    expect(pool.used).toBeGreaterThanOrEqual(1);
    expect(pool.used).toBeLessThanOrEqual(2);
    await pool.close();
    expect(a.started.every((s) => s.closed)).toBe(true);

    const b = opener();
    const idle = ModelPool.opening(entry, b.open, 2);
    idle.warm(1);
    expect(await idle.map([], async () => 1)).toEqual([]);
    expect(idle.used).toBe(0);
    await idle.close();
    expect(b.started).toHaveLength(1);
    expect(b.started[0]!.closed).toBe(true);
  });

  it('a warm-up that fails is said by map(), once, and the workers that did start are closed with the pool', async () => {
    let k = 0;
    const closed: number[] = [];
    const open = async (): Promise<ModelSession> => {
      const n = k++;
      await sleep(5);
      if (n === 1) throw new Error('the model could not be started: damaged');
      return { classified: 0, close: async () => void closed.push(n) } as unknown as ModelSession;
    };
    const pool = ModelPool.opening(entry, open, 2);
    pool.warm();
    await sleep(20); // failed by now, and nobody awaited it: no unhandled rejection
    await expect(pool.map([1], async () => 1)).rejects.toThrow('the model could not be started: damaged');
    await pool.close();
    expect(closed).toEqual([0]);
  });

  it('closing a pool while its workers start stops the starts at once (a test whose results were all kept needs none of them)', async () => {
    const signals: AbortSignal[] = [];
    const closed: number[] = [];
    // One start is quick, the other would take a minute unless told to stop.
    const open = (signal: AbortSignal): Promise<ModelSession> => {
      const n = signals.push(signal) - 1;
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => resolve({ classified: 0, close: async () => void closed.push(n) } as unknown as ModelSession), n === 0 ? 1 : 60_000);
        signal.addEventListener('abort', () => {
          if (n === 0) return; // started already
          clearTimeout(t);
          reject(new Error('stopped while starting'));
        });
      });
    };
    const pool = ModelPool.opening(entry, open, 2);
    pool.warm();
    await sleep(20);
    const t0 = Date.now();
    await pool.close();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(closed).toEqual([0]); // the one that had started is closed with the pool
  });
});
