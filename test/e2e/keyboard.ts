import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.js';

/**
 * Driving the app with the keyboard alone (issue 28): every step is a key press, and after each
 * one the focus is checked: on an element (never lost to the page), inside the open dialog when
 * there is one (never behind it), and drawn (a :focus-visible outline or shadow on a box that has
 * a size). Targets are reached with Tab, as a person reaches them.
 */

/** What is wrong with the focus now, in words; null when all is well. */
export function focusProblem(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const el = document.activeElement;
    const name = (e: Element) => `<${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.getAttribute('data-testid') ? ` data-testid=${e.getAttribute('data-testid')}` : ''}> "${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 40)}"`;
    if (!el || el === document.body || el === document.documentElement) return 'focus lost: nothing has it (the page body)';
    const modal = document.querySelector('dialog:modal');
    if (modal && !modal.contains(el)) return `focus behind the open dialog, on ${name(el)}`;
    if (!el.matches(':focus-visible')) return `focus not shown (:focus-visible does not match) on ${name(el)}`;
    const css = getComputedStyle(el);
    const drawn = (css.outlineStyle !== 'none' && parseFloat(css.outlineWidth) > 0) || css.boxShadow !== 'none';
    if (!drawn) return `focus not drawn (no outline, no shadow) on ${name(el)}`;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return `focus on ${name(el)}, which has no box on screen`;
    return null;
  });
}

/** The focus is well now, or becomes so while the page settles (a dialog opening moves it). */
export async function expectFocusShown(page: Page): Promise<void> {
  await expect.poll(() => focusProblem(page), { message: 'focus is on an element, shown, and not behind a dialog', timeout: 5000 }).toBeNull();
}

export async function press(page: Page, key: string): Promise<void> {
  await page.keyboard.press(key);
  await expectFocusShown(page);
}

const isFocused = (target: Locator) => target.evaluate((el) => el === document.activeElement).catch(() => false);

/** Tab (or Shift+Tab) until `target` has focus, checking the focus at every stop on the way. */
export async function tabTo(page: Page, target: Locator, opts: { back?: boolean; max?: number } = {}): Promise<void> {
  const key = opts.back ? 'Shift+Tab' : 'Tab';
  for (let i = 0; i < (opts.max ?? 80); i++) {
    if (await isFocused(target)) return;
    await press(page, key);
  }
  if (!(await isFocused(target))) throw new Error(`${key} never reached ${String(target)} in ${opts.max ?? 80} presses`);
}

/** Tab to a field, select what it holds and type over it. */
export async function typeInto(page: Page, field: Locator, text: string, opts: { back?: boolean } = {}): Promise<void> {
  await tabTo(page, field, opts);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type(text);
  await expect(field).toHaveValue(text);
}
