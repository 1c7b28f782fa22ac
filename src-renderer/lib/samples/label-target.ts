// A per-label target as typed in the class balance ("Target for a label … samples"), checked
// against the rules the contract holds before it is saved: a label over 128 characters or a number
// over a million came back as the schema's "Invalid arguments for settings.set
// (labelTargets.xxxx…: Invalid key in record)", naming neither the rule nor what to do.
import { labelProblem } from '../../../src-main/core/contract/label-rule.js';
import { MAX_LABEL_TARGET } from '../../../src-main/core/contract/limits.js';

/** The target to save (null: clear it), or what is wrong in words. `label` is trimmed and not empty. */
export function labelTarget(label: string, text: string): { ok: true; target: number | null } | { ok: false; problem: string } {
  const problem = labelProblem(label);
  if (problem) return { ok: false, problem };
  const t = text.trim();
  if (t === '') return { ok: true, target: null };
  const n = Number(t);
  if (!Number.isInteger(n) || n <= 0 || n > MAX_LABEL_TARGET) {
    return { ok: false, problem: `Target for "${label}" must be a whole number from 1 to ${MAX_LABEL_TARGET.toLocaleString('en-US')}, or empty for none.` };
  }
  return { ok: true, target: n };
}
