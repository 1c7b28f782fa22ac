import { describe, it, expect } from 'vitest';
import type { DatasetSummary } from '../../../src-main/core/contract.js';
import { balanceTable } from '../../../src-renderer/lib/samples/class-balance.js';

const empty = { itemCount: 0, totalLengthMs: 0, labels: [] };
function summary(training: Array<[string, number, number]>, testing: Array<[string, number, number]> = []): DatasetSummary {
  const cat = (l: Array<[string, number, number]>) => ({
    itemCount: l.reduce((n, [, c]) => n + c, 0),
    totalLengthMs: l.reduce((n, [, , ms]) => n + ms, 0),
    labels: l.map(([label, count, totalLengthMs]) => ({ label, count, totalLengthMs })),
  });
  return { hasValidation: false, categories: { training: cat(training), testing: cat(testing), validation: empty, 'post-processing': empty } };
}

describe('class balance table', () => {
  it('adds platform and local counts and lengths per label across categories, with targets', () => {
    const t = balanceTable(summary([['idle', 3, 3000]], [['idle', 1, 1000]]), summary([['idle', 2, 2000], ['wave', 1, 500]]), { idle: 10, knock: 5 });
    const idle = t.rows.find((r) => r.label === 'idle')!;
    expect(idle).toMatchObject({ count: 6, lengthMs: 6000, target: 10 });
    expect(idle.cells.training).toEqual({ platform: 3, local: 2 });
    expect(t.rows.find((r) => r.label === 'wave')).toMatchObject({ count: 1, lengthMs: 500, target: null });
    // A target for a label with no samples yet is a row of its own: what to record next.
    expect(t.rows.find((r) => r.label === 'knock')).toMatchObject({ count: 0, lengthMs: 0, target: 5 });
    expect(t.rows.map((r) => r.label)).toEqual(['idle', 'knock', 'wave']);
  });

  it('without the platform, counts are local only and platform cells say unknown', () => {
    const t = balanceTable(null, summary([['idle', 2, 2000]]));
    expect(t.rows[0]!.cells.training).toEqual({ platform: null, local: 2 });
    expect(t.rows[0]!.count).toBe(2);
  });
});
