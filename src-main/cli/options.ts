import type { BoundingBox, Category } from '../core/contract/contract.js';
import { LABEL_CONTROL_CHARS, MAX_LABEL_CHARS } from '../core/contract/label-rule.js';
import { validateBoundingBoxes } from '../core/samples/formats/bounding-boxes.js';
import { UsageError } from './args.js';

const CATEGORIES: readonly Category[] = ['training', 'validation', 'testing', 'post-processing', 'split'];

export function parseCategory(value: string | undefined, allowed: readonly Category[] = CATEGORIES): Category {
  const v = value ?? 'training';
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`--category must be one of ${allowed.join(', ')}; got "${v}".`);
  return v as Category;
}

/**
 * --label as the app takes one (label-rule.ts, the contract's rule: a label a command keeps can be
 * given in the app too): trimmed; a newline or another control character, or more than 128
 * characters, is refused here (it was kept with the take and only refused by the upload, later).
 * Empty: `empty` says what that means for the command (no label, or a mistake).
 */
export function parseLabel(value: string | undefined, empty: 'unlabeled' | 'refused' = 'unlabeled'): string | null | undefined {
  if (value === undefined) return undefined;
  const label = value.trim();
  if (label === '') {
    if (empty === 'unlabeled') return null;
    throw new UsageError('--label must not be empty.');
  }
  if (LABEL_CONTROL_CHARS.test(label)) throw new UsageError(`--label must not hold a newline, tab or other control character; got ${JSON.stringify(label.slice(0, 60)).replace(/\u007f/g, '\\u007f')}.`); // DEL too, which JSON leaves raw
  if (label.length > MAX_LABEL_CHARS) throw new UsageError(`--label must be at most ${MAX_LABEL_CHARS} characters; got ${label.length}.`);
  return label;
}

export function parseMetadata(value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError(`--metadata must be a JSON object such as '{"subject":"ana","board":"nano-33"}'; could not parse ${JSON.stringify(value.slice(0, 60))}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError('--metadata must be a JSON object of key/value pairs.');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed)) {
    // null would reach the platform as the text "null": refuse it rather than guess what was meant.
    if (v === null) throw new UsageError(`--metadata value of "${k}" is null; give a string or a number, or leave "${k}" out.`);
    if (typeof v === 'object') throw new UsageError(`--metadata value of "${k}" must be a string or number, not an object or list.`);
    out[k] = String(v);
  }
  return out;
}

/** Checked with the platform's own rules and texts before anything is sent. */
export function parseBoundingBoxes(value: string | undefined): BoundingBox[] {
  if (value === undefined) return [];
  const r = validateBoundingBoxes(value);
  if (!r.ok) throw new UsageError(`--bounding-boxes: ${r.error}. Give a JSON array like '[{"label":"cup","x":10,"y":20,"width":50,"height":40}]'.`);
  return r.boxes;
}

export function parseIntFlag(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  // Number("") is 0: a blank value would pass as 0 where 0 is allowed.
  const n = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}; got "${value}".`);
  return n;
}

/** --baud: "auto" (the default: found from the board's output) or a rate that forces it. */
export function parseBaudFlag(value: string | undefined): number | 'auto' {
  if (value === undefined || value.trim().toLowerCase() === 'auto') return 'auto';
  return parseIntFlag('--baud', value, 0, 300, 12_000_000);
}
