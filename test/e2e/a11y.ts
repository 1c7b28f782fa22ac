import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';
import type { AxeResults, ImpactValue, Result } from 'axe-core';
import { expect } from './fixtures.js';

/**
 * The accessibility audit (issue 28): axe-core, read from node_modules (no network), run on
 * the page as it is now. Every violation fails, with its rule, impact and elements, unless it is
 * moderate or minor and listed in ALLOWED with why; serious and critical ones cannot be allowed.
 * Failures are soft: one run of a spec lists every view's problems, not only the first.
 */

// Evaluated, not added as a <script>: the shell's Content-Security-Policy allows no inline script,
// and the audit must not need that policy loosened.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Allowed {
  rule: string;
  /** The element's selector as axe reports it (its last part is enough when it is unique). */
  selector: RegExp;
  why: string;
}

/** Each entry: a rule, the element(s) it may flag, and why it stays. Keep it short. */
export const ALLOWED: Allowed[] = [];

const BLOCKING: ImpactValue[] = ['serious', 'critical'];

declare global {
  interface Window {
    axe?: { run: (context: Element | Document, options: object) => Promise<AxeResults> };
  }
}

/** What is left to fix, one line per element: rule (impact): help — selector: summary. */
export function describe(violations: Result[]): string[] {
  return violations.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} — ${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').trim()}`),
  );
}

function allowed(rule: string, impact: ImpactValue | null | undefined, selector: string): boolean {
  if (impact && BLOCKING.includes(impact)) return false;
  return ALLOWED.some((a) => a.rule === rule && a.selector.test(selector));
}

/** Runs axe on the page (or inside `within`) and keeps what is not allowed. */
export async function violations(page: Page, within?: string): Promise<Result[]> {
  if (!(await page.evaluate(() => window.axe !== undefined))) await page.evaluate(AXE);
  const results = await page.evaluate(async (sel) => {
    const context = sel ? document.querySelector(sel) : document;
    if (!context) throw new Error(`nothing to audit: ${sel} is not on the page`);
    return window.axe!.run(context, { resultTypes: ['violations'] });
  }, within ?? null);
  return results.violations
    .map((v) => ({ ...v, nodes: v.nodes.filter((n) => !allowed(v.id, v.impact, n.target.join(' '))) }))
    .filter((v) => v.nodes.length > 0);
}

/** Audits the page as it is now; `where` names the state in the failure ("Samples, a sample open"). */
export async function audit(page: Page, where: string, within?: string): Promise<void> {
  const found = describe(await violations(page, within));
  expect.soft(found, `accessibility audit of ${where}:\n${found.join('\n')}`).toEqual([]);
}
