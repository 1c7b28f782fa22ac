import { describe, expect, it } from 'vitest';
import type { ModelSession } from '../../src-main/core/model/model-session.js';
import { SessionLender } from '../../src-main/core/model/session-lender.js';

function opener() {
  const started: Array<{ n: number; closed: boolean; failed: string | null }> = [];
  const open = async (): Promise<ModelSession> => {
    const s = { n: started.length, closed: false, failed: null as string | null, close: async () => void (s.closed = true) };
    started.push(s);
    return s as unknown as ModelSession;
  };
  return { started, open };
}
const nOf = (s: ModelSession) => (s as unknown as { n: number }).n;

describe('SessionLender', () => {
  it('lends a free session, opens another only while all are lent, and keeps them for the next sample', async () => {
    const { started, open } = opener();
    const lender = new SessionLender(open);
    expect(await lender.use(async (s) => nOf(s))).toBe(0);
    expect(await lender.use(async (s) => nOf(s))).toBe(0); // the same one again
    let release!: () => void;
    const held = lender.use((s) => new Promise<number>((r) => (release = () => r(nOf(s)))));
    expect(lender.busy).toBe(1);
    expect(await lender.use(async (s) => nOf(s))).toBe(1); // 0 is lent: a second one
    release();
    expect(await held).toBe(0);
    expect(started).toHaveLength(2);
    expect(lender.busy).toBe(0);
  });

  it('drops a session whose model failed; close closes the free ones now and a lent one when it comes back', async () => {
    const { started, open } = opener();
    const lender = new SessionLender(open);
    await lender.use(async (s) => void ((s as unknown as { failed: string }).failed = 'stopped twice'));
    expect(started[0]!.closed).toBe(true);
    expect(await lender.use(async (s) => nOf(s))).toBe(1);
    let release!: () => void;
    const held = lender.use(() => new Promise<void>((r) => (release = r)));
    await Promise.resolve();
    await lender.use(async () => undefined).catch(() => undefined);
    await lender.close();
    const lent = started.find((s) => !s.closed)!;
    release();
    await held;
    expect(lent.closed).toBe(true);
    expect(started.every((s) => s.closed)).toBe(true);
    await expect(lender.use(async () => 1)).rejects.toThrow("the model's sessions were closed");
  });
});
