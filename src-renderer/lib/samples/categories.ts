import type { Category } from '../../../src-main/core/contract/contract.js';

// A record, not a list, so a category added to the contract fails the type check here until it
// is placed; the renderer imports contract types only, so it cannot read the enum's values.
const ORDER: Record<Category, true> = { training: true, testing: true, validation: true, 'post-processing': true, split: true };

/** In the order people think of them. */
export const CATEGORIES = Object.keys(ORDER) as Category[];
