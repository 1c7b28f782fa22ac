/**
 * What a label may be: the contract's `Label` checks it, and the renderer asks the same question
 * before it calls, so a person who typed or pasted a label hears what is wrong with it in words
 * ("200 characters; at most 128") instead of the schema's "Too big: expected string to have
 * <=128 characters". Its own module, free of zod, as limits.ts, so both sides share one rule.
 */
export const MAX_LABEL_CHARS = 128;

/** Control characters (a pasted tab or line break inside a label) that no label may hold. */
// eslint-disable-next-line no-control-regex
export const LABEL_CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/**
 * Why `label` (as typed: it is trimmed first, as the contract trims it) cannot be a label, or null
 * when it can. An empty label is not asked about here: each caller says what empty means
 * (unlabeled, or refused).
 */
export function labelProblem(label: string): string | null {
  const l = label.trim();
  if (l.length > MAX_LABEL_CHARS) {
    return `The label is ${l.length} characters long; a label is at most ${MAX_LABEL_CHARS}. Shorten it.`;
  }
  if (LABEL_CONTROL_CHARS.test(l)) return 'The label holds a tab, line break or other control character; type it again without one.';
  return null;
}
