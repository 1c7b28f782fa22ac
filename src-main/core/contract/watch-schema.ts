import { z } from 'zod';
import { Category } from '../category.js';

/**
 * What the user chose for one watched folder. Kept free of Node imports (the renderer uses the same
 * schema); part of the contract, so nothing here imports more than zod and category.ts.
 */

/**
 * Absolute on any OS the app runs on: `/x`, `C:\x`, `C:/x`, `\\server\share`. Written out rather
 * than node:path's isAbsolute so the renderer can use the same schema.
 */
const ABSOLUTE_PATH = /^(\/|[a-zA-Z]:[\\/]|\\\\[^\\]+\\[^\\]+)/;

export const LabelRule = z.discriminatedUnion('mode', [
  /** The platform's rule: `idle.01.cbor` → `idle`. */
  z.object({ mode: z.literal('filename') }).strict(),
  z.object({ mode: z.literal('fixed'), label: z.string().trim().min(1, 'a fixed label must not be empty') }).strict(),
  z.object({ mode: z.literal('unlabeled') }).strict(),
]);
export type LabelRule = z.infer<typeof LabelRule>;

export const WatchedFolderInput = z
  .object({
    path: z.string().refine((p) => ABSOLUTE_PATH.test(p), { message: 'must be an absolute path (e.g. /home/me/captures or C:\\captures)' }),
    category: Category,
    label: LabelRule,
    metadata: z.record(z.string(), z.string()).default({}),
    enabled: z.boolean().default(true),
  })
  .strict();
/** What a caller sends: metadata and enabled may be left out. */
export type WatchedFolderInput = z.input<typeof WatchedFolderInput>;

export const WatchedFolder = WatchedFolderInput.extend({
  id: z.string().min(1),
  metadata: z.record(z.string(), z.string()),
  enabled: z.boolean(),
});
export type WatchedFolder = z.infer<typeof WatchedFolder>;

/** A folder as the UI shows it: its settings plus whether it is being watched right now, and if not, why. */
export const WatchedFolderState = WatchedFolder.extend({
  watching: z.boolean(),
  problem: z.string().nullable(),
});
export type WatchedFolderState = z.infer<typeof WatchedFolderState>;

/** A file that was in the folder before watching began and is not a sample yet: offered, never sent unasked. */
export const PendingFile = z.object({ path: z.string(), bytes: z.number().int().nonnegative() });
export type PendingFile = z.infer<typeof PendingFile>;

export const ImportPendingResult = z.object({
  /** Ids of the new samples, already queued. */
  added: z.array(z.string()),
  /** Files that were samples already (same path and content). */
  known: z.number().int().nonnegative(),
  failed: z.array(z.object({ path: z.string(), reason: z.string() })),
});
export type ImportPendingResult = z.infer<typeof ImportPendingResult>;
