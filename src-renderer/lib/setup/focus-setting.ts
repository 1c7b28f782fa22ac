import type { ItemId } from './checklist.js';

/** Where each checklist item is set on the Settings view (its fields belong to the panels there). */
const FIELDS: Record<Exclude<ItemId, 'test'>, string> = {
  project: '[data-testid=settings] input[name=projectId]',
  'api-key': '[data-testid=key-api-key] input[type=password]',
  'hmac-key': '[data-testid=key-hmac-key] input[type=password]',
};

/** Puts the keyboard in the field for `item` (the Settings view must be shown); false if not there yet. */
export function focusSetting(item: Exclude<ItemId, 'test'>, root: ParentNode = document): boolean {
  const el = root.querySelector<HTMLElement>(FIELDS[item]);
  el?.focus();
  return !!el;
}
