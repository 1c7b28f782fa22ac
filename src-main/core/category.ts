import { z } from 'zod';

/**
 * The sets a sample can belong to on the platform ("split" = let the platform divide it by the
 * project's ratio). A file of its own so the contract and the schemas it imports (watched folders)
 * share one definition and imports run one way.
 */
export const Category = z.enum(['training', 'validation', 'testing', 'post-processing', 'split']);
export type Category = z.infer<typeof Category>;
