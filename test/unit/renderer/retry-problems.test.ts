// "Retry N failed + M rejected" in the queue panel queues every one of them in one press, however
// many: more than one page of queue.enqueue (MAX_IDS) and more than samples.idsMatching answers at
// once. A sample that fails again at once does not make the press loop. The fake core holds the
// states and checks each call's input against the contract, as the real dispatcher does.
import { describe, expect, it } from 'vitest';
import { methods } from '../../../src-main/core/contract/contract.js';
import { MAX_IDS } from '../../../src-main/core/contract/limits.js';
import { createApi } from '../../../src-renderer/lib/api/client.js';
import type { CallResult } from '../../../src-main/core/contract/contract.js';
import { QueueState } from '../../../src-renderer/lib/state/queue.svelte.js';

function fakeCore(failed: number, rejected: number, opts: { listCap?: number; failAgain?: boolean } = {}) {
  const states = new Map<string, string>();
  for (let i = 0; i < failed; i++) states.set(`f${i}`, 'failed');
  for (let i = 0; i < rejected; i++) states.set(`r${i}`, 'rejected');
  const enqueueSizes: number[] = [];
  const call = async (method: string, input: unknown): Promise<CallResult> => {
    const parsed = methods[method as keyof typeof methods].input.safeParse(input);
    if (!parsed.success) return { ok: false as const, error: { code: 'InvalidArguments', message: parsed.error.message } };
    if (method === 'samples.idsMatching') {
      const want = (input as { filter: { states: string[] } }).filter.states;
      const all = [...states].filter(([, s]) => want.includes(s)).map(([id]) => id);
      return { ok: true as const, value: { ids: all.slice(0, opts.listCap ?? 100_000), total: all.length } };
    }
    if (method === 'queue.enqueue') {
      const ids = (input as { ids: string[] }).ids;
      enqueueSizes.push(ids.length);
      if (opts.failAgain) return { ok: true as const, value: { queued: 0, held: 0 } };
      for (const id of ids) states.set(id, 'queued');
      return { ok: true as const, value: { queued: ids.length, held: 0 } };
    }
    throw new Error(`not faked: ${method}`);
  };
  const api = createApi({ call, onEvent: () => () => {}, onStatus: () => () => {} });
  const left = () => [...states.values()].filter((s) => s === 'failed' || s === 'rejected').length;
  return { api, enqueueSizes, left };
}

describe('retry every failed and rejected sample', () => {
  it('queues more than one page of them in one press, each call within the contract', async () => {
    const core = fakeCore(2 * MAX_IDS + 17, 1_000);
    expect(await new QueueState(core.api).retryProblems()).toBe(2 * MAX_IDS + 1_017);
    expect(core.left()).toBe(0);
    expect(core.enqueueSizes).toEqual([MAX_IDS, MAX_IDS, 1_017]);
  });

  it('asks again when there were more than the listing answers at once', async () => {
    const core = fakeCore(7_000, 0, { listCap: 3_000 });
    expect(await new QueueState(core.api).retryProblems()).toBe(7_000);
    expect(core.left()).toBe(0);
  });

  it('ends when a round queues none (samples that cannot be queued) instead of asking forever', async () => {
    const core = fakeCore(7_000, 0, { listCap: 3_000, failAgain: true });
    expect(await new QueueState(core.api).retryProblems()).toBe(0);
    expect(core.enqueueSizes).toEqual([3_000]);
  });

  it('does nothing with nothing to retry', async () => {
    const core = fakeCore(0, 0);
    expect(await new QueueState(core.api).retryProblems()).toBe(0);
    expect(core.enqueueSizes).toEqual([]);
  });
});
