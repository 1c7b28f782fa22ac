import { describe, expect, it } from 'vitest';
import { LossLedger } from '../../../src-main/core/serial/nordic/loss-ledger.js';

describe("a Nordic stream's known losses: the board's drops (its dr) told from the link's", () => {
  it('a drop of 5 after a transport loss of 12: the gap of 5 is the board\'s, the 12 stay lost on the way', () => {
    const l = new LossLedger();
    l.add(100, 99, 12, 0); // the link lost 12
    l.add(150, 161, 5, 0); // the board's queue overflowed: 5
    l.deviceDropped(5); // its next session info: dr + 5
    expect(l.between(0, 1000).map((g) => [g.count, g.device])).toEqual([[12, 0], [5, 5]]);
    expect([l.lost, l.device]).toEqual([17, 5]);
  });

  it('drops counted in one session info are matched among the gaps seen since the one before: two runs of 5 around a loss of 12', () => {
    const l = new LossLedger();
    l.add(10, 9, 5, 0);
    l.deviceDropped(5); // the session info after it
    l.add(100, 120, 5, 0);
    l.add(150, 175, 12, 0);
    l.add(200, 237, 5, 0);
    l.deviceDropped(10); // the next one counts both runs of 5
    expect(l.between(0, 1000).map((g) => [g.count, g.device])).toEqual([[5, 5], [5, 5], [12, 0], [5, 5]]);
    l.add(300, 342, 12, 0);
    l.deviceDropped(0); // nothing dropped since: the loss stays the link's
    expect([l.lost, l.device]).toEqual([39, 15]);
  });

  it('no set of gaps adds up to the drops: they wait one session info for their gap, then go earliest first', () => {
    const l = new LossLedger();
    l.add(100, 99, 4, 0);
    l.add(150, 153, 4, 0);
    l.deviceDropped(6); // runs of 4 and 2? 3 and 3? A gap may still come: pending
    expect(l.between(0, 1000).map((g) => g.device)).toEqual([0, 0]);
    l.deviceDropped(0); // the next session info: given earliest first
    expect(l.between(0, 1000).map((g) => g.device)).toEqual([4, 2]);
    const m = new LossLedger();
    m.add(10, 9, 12, 0); // the link lost 12
    m.deviceDropped(3); // counted before its gap arrives
    m.add(200, 210, 3, 0);
    expect(m.between(0, 1000).map((g) => [g.count, g.device])).toEqual([[12, 0], [3, 3]]);
    expect([l.lost + m.lost, l.device + m.device]).toEqual([23, 9]);
  });
});
