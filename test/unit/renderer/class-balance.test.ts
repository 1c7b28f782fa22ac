import { describe, it, expect } from 'vitest';
import type { BalanceCounts, BalanceLabel, ClassBalance } from '../../../src-main/core/contract/contract.js';
import { differenceText } from '../../../src-main/core/samples/class-balance.js';
import { balanceTable, breakdown, cellShort, cellWords, differenceMark, showName, towardsTarget } from '../../../src-renderer/lib/samples/class-balance.js';

type Where = Partial<Pick<BalanceCounts, 'uploaded' | 'queued' | 'local' | 'failed' | 'totalLengthMs'>> & { platform?: number };

/** A row as the core makes it: total and difference follow from the parts (platform undefined = not reached). */
function counts(w: Where): BalanceCounts {
  const c = { uploaded: 0, queued: 0, local: 0, failed: 0, totalLengthMs: 0, ...w };
  const difference = w.platform === undefined ? null : w.platform - c.uploaded;
  return {
    uploaded: c.uploaded, queued: c.queued, local: c.local, failed: c.failed,
    total: c.uploaded + c.queued + c.local + c.failed, totalLengthMs: c.totalLengthMs,
    platform: w.platform === undefined ? null : { count: w.platform, totalLengthMs: 0 },
    difference, differenceText: difference === null ? null : differenceText(difference, c.uploaded),
  };
}

/** Sums rows the way the core does (platform counts too, when every row has one). */
function sum(rows: BalanceCounts[], reached: boolean): BalanceCounts {
  const add = (k: 'uploaded' | 'queued' | 'local' | 'failed' | 'totalLengthMs') => rows.reduce((n, r) => n + r[k], 0);
  return counts({
    uploaded: add('uploaded'), queued: add('queued'), local: add('local'), failed: add('failed'), totalLengthMs: add('totalLengthMs'),
    ...(reached ? { platform: rows.reduce((n, r) => n + (r.platform?.count ?? 0), 0) } : {}),
  });
}

type Cat = keyof ClassBalance['categories'];
/** A ClassBalance from label × category rows, with its per-category, per-label and overall sums. */
function balance(cells: Array<[string | null, Cat, Where]>, error: string | null = null): ClassBalance {
  const reached = error === null;
  const cats: Cat[] = ['training', 'testing', 'validation', 'post-processing'];
  const categories = Object.fromEntries(
    cats.map((c) => {
      const labels: BalanceLabel[] = cells.filter(([, cat]) => cat === c).map(([label, , w]) => ({ label, ...counts(w) }));
      return [c, { ...sum(labels, reached), labels }];
    }),
  ) as ClassBalance['categories'];
  const names = [...new Set(cells.map(([l]) => l))];
  const labels = names.map((label) => ({ label, ...sum(cats.flatMap((c) => categories[c].labels.filter((l) => l.label === label)), reached) }));
  const all = sum(cats.map((c) => categories[c]), reached);
  const summary = reached
    ? `${all.total} samples in this data folder. The platform has ${all.platform?.count}.`
    : `${all.total} samples in this data folder. The platform's own numbers are not shown (${error!.replace(/\.$/, '')}); uploaded counts what it confirmed to this computer.`;
  return { categories, labels, all, platformReached: reached, platformError: error, summary };
}

describe('class balance table', () => {
  it('takes every count from the balance: per label and category, totals from the categories and the whole folder', () => {
    const t = balanceTable(balance([
      ['idle', 'training', { uploaded: 120, queued: 3, local: 5, totalLengthMs: 128_000, platform: 132 }],
      ['idle', 'testing', { uploaded: 20, platform: 20 }],
      ['wave', 'training', { uploaded: 4, failed: 1, platform: 4 }],
      [null, 'training', { local: 2 }],
    ]));
    expect(t.columns).toEqual(['training', 'testing']);
    expect(t.rows.map((r) => r.name)).toEqual(['idle', 'wave', 'unlabeled']);
    const idle = t.rows[0]!;
    expect(idle.cells.training).toMatchObject({ uploaded: 120, queued: 3, local: 5, total: 128, platform: { count: 132 }, difference: 12 });
    expect(idle.all).toMatchObject({ total: 148, totalLengthMs: 128_000, difference: 12 });
    // A category a label has nothing in: zeros, and the platform's 0 beside them.
    expect(t.rows[1]!.cells.testing).toMatchObject({ total: 0, platform: { count: 0 }, difference: 0 });
    expect(t.rows[2]!.label).toBeNull();
    // Totals add up: per category over the labels, and every category to the folder.
    expect(t.totals.training.total).toBe(128 + 5 + 2);
    expect(t.totals.testing.total).toBe(20);
    expect(t.all.total).toBe(t.rows.reduce((n, r) => n + r.all.total, 0));
    expect(t.all.total).toBe(t.columns.reduce((n, c) => n + t.totals[c].total, 0));
    expect(t.platformReached).toBe(true);
    expect(t.platformError).toBeNull();
  });

  it('offline, the uploaded counts still show; the platform has no number and its error is said once', () => {
    const error = 'Could not reach the management API at http://127.0.0.1:9/v1: connect ECONNREFUSED.';
    const t = balanceTable(balance([['idle', 'training', { uploaded: 50_000, local: 5_000 }]], error));
    expect(t.rows[0]!.cells.training).toMatchObject({ uploaded: 50_000, local: 5_000, total: 55_000, platform: null, difference: null });
    expect(t.all.total).toBe(55_000);
    expect(t.platformError).toBe(error);
    // The sentence keeps what it says about the folder, without the error (the notice says it).
    expect(t.summary).toBe("55000 samples in this data folder. The platform's own numbers are not shown; uploaded counts what it confirmed to this computer.");
    expect(t.summary).not.toContain('ECONNREFUSED');
    expect(t.differences).toEqual([]);
    expect(cellWords(t.rows[0]!.cells.training)).toBe('50,000 uploaded, 5,000 local, not queued.');
  });

  it('lists every label × category the platform disagrees on, in the core’s words', () => {
    const t = balanceTable(balance([
      ['idle', 'training', { uploaded: 10, platform: 22 }],
      ['idle', 'testing', { uploaded: 3, platform: 3 }],
      ['wave', 'testing', { uploaded: 5, platform: 4 }],
    ]));
    expect(t.differences).toEqual([
      { label: 'idle', category: 'training', text: '12 more on the platform than uploaded from here (added there or from another computer)' },
      { label: 'wave', category: 'testing', text: '1 fewer on the platform than uploaded from here (deleted or moved to another category there)' },
    ]);
    expect(differenceMark(t.rows[0]!.cells.training)).toBe('+12');
    expect(differenceMark(t.rows[1]!.cells.testing)).toBe('−1');
    expect(differenceMark(t.rows[0]!.cells.testing)).toBe('');
  });

  it('shows validation and post-processing only when used (or when the project has a validation set)', () => {
    const b = balance([['idle', 'post-processing', { local: 1 }]]);
    expect(balanceTable(b).columns).toEqual(['training', 'testing', 'post-processing']);
    expect(balanceTable(b, {}, true).columns).toEqual(['training', 'testing', 'validation', 'post-processing']);
    // Used on the platform only (nothing here): the column shows, so its count can be seen.
    expect(balanceTable(balance([['idle', 'validation', { platform: 7 }]])).columns).toEqual(['training', 'testing', 'validation']);
  });

  it('targets: rows for labels not recorded yet; progress counts what is here (failed aside) and what the platform has beyond it', () => {
    const t = balanceTable(balance([
      ['idle', 'training', { uploaded: 10, queued: 2, local: 1, failed: 4, platform: 15 }],
      ['wave', 'training', { uploaded: 10, platform: 7 }],
    ]), { idle: 20, knock: 5 });
    expect(t.rows.map((r) => [r.name, r.target, r.progress])).toEqual([
      ['idle', 20, 10 + 2 + 1 + 5],
      ['knock', 5, 0],
      // 3 deleted on the platform: the folder still has its 10, so they stay counted.
      ['wave', null, 10],
    ]);
    expect(t.rows[1]!.cells.training).toMatchObject({ total: 0, platform: { count: 0 } });
    // Offline the platform adds nothing.
    expect(towardsTarget(counts({ uploaded: 10, local: 2 }))).toBe(12);
    // Unlabeled samples never have a target.
    expect(balanceTable(balance([[null, 'training', { local: 1 }]])).rows[0]!.target).toBeNull();
  });

  it('words a cell: the short parts that are not 0, the button that shows them, the description', () => {
    const c = counts({ uploaded: 1_200, queued: 3, failed: 1, platform: 1_212 });
    expect(breakdown(c).map((p) => p.short)).toEqual(['1,200 ↑', '3 queued', '1 failed']);
    expect(breakdown(counts({}))).toEqual([]);
    expect(showName({ label: 'idle' }, c, 'training')).toBe('Show the 1,204 idle samples in training');
    expect(showName({ label: null }, counts({ local: 1 }), null)).toBe('Show the 1 unlabeled sample (every category)');
    expect(cellWords(c)).toBe('1,200 uploaded, 3 queued, 1 failed or refused. The platform has 1,212: 12 more on the platform than uploaded from here (added there or from another computer).');
    expect(cellWords(counts({ uploaded: 2, platform: 2 }))).toBe('2 uploaded. The platform has 2.');
    expect(cellWords(counts({ platform: 0 }))).toBe('None here. The platform has 0.');
    // What the cell shows, in order: its button's name starts with it (label in name).
    expect(cellShort(c)).toBe('1,204, 1,200 ↑, 3 queued, 1 failed, platform 1,212 +12');
    expect(cellShort(counts({ local: 2 }))).toBe('2, 2 local');
  });
});
