/**
 * The most samples one call names (a filter's or a list's `ids`) or answers (a page's `limit`).
 * Its own module, free of zod, so the renderer caps what it sends by the same number the
 * contract checks instead of a copy that could drift.
 */
export const MAX_IDS = 5000;

/** The largest per-label target (Settings' labelTargets) the contract takes. */
export const MAX_LABEL_TARGET = 1_000_000;
