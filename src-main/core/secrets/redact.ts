/** What a secret is replaced with in anything that may be shown, logged or sent back to a renderer. */
export const REDACTED = '«redacted»';

/**
 * Replaces every occurrence of each secret in `text` — verbatim, URL-encoded (a key in a query
 * string) and JSON-escaped (a key inside a logged body) — with «redacted». Empty and missing
 * secrets are ignored, so callers can pass whatever keys they hold without checking them first.
 */
export function redactSecrets(text: string, secrets: Iterable<string | null | undefined>): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  if (forms.size === 0) return text;
  // One pass, longest first: a secret containing another is replaced whole, and nothing already
  // replaced is looked at again.
  const pattern = [...forms]
    .sort((a, b) => b.length - a.length)
    .map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|');
  return text.replace(new RegExp(pattern, 'g'), REDACTED);
}
