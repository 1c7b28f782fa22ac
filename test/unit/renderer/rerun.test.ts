// One request at a time, and one more after it when asked meanwhile: the samples table and the
// filter menus refetch this way, so a burst of change events never answers out of order.
import { describe, expect, it } from 'vitest';
import { Rerun } from '../../../src-renderer/lib/state/rerun.js';

describe('Rerun', () => {
  it('runs once more after the running work, however often it was asked meanwhile, never two at once', async () => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const r = new Rerun(async () => {
      running++;
      most = Math.max(most, running);
      runs++;
      await new Promise((res) => setTimeout(res, 10));
      running--;
    });
    const first = r.run();
    const others = [r.run(), r.run(), r.run()];
    await Promise.all([first, ...others]);
    expect(runs).toBe(2);
    expect(most).toBe(1);
    await r.run();
    expect(runs).toBe(3);
  });

  it('again() from inside the work asks for the follow-up itself', async () => {
    let runs = 0;
    const r = new Rerun(async () => {
      runs++;
      if (runs === 1) r.again();
    });
    await r.run();
    expect(runs).toBe(2);
  });
});
