/** Watched folders: new files in them become samples (and go to the upload queue when asked). */
import { z } from 'zod';
import { none } from './method-args.js';
import { ImportPendingResult, PendingFile, WatchedFolder, WatchedFolderInput, WatchedFolderState } from './watch-schema.js';

export const watchMethods = {
  'watch.list': { input: none, output: z.array(WatchedFolderState) },
  'watch.add': { input: WatchedFolderInput, output: WatchedFolder },
  'watch.remove': { input: z.object({ id: z.string() }).strict(), output: z.object({ removed: z.boolean() }) },
  'watch.setEnabled': { input: z.object({ id: z.string(), enabled: z.boolean() }).strict(), output: WatchedFolder },
  /** Files that were already in the folder when watching began: offered, never uploaded unasked. */
  'watch.pending': { input: z.object({ id: z.string() }).strict(), output: z.array(PendingFile) },
  'watch.importPending': { input: z.object({ id: z.string(), paths: z.array(z.string()).max(100_000).optional() }).strict(), output: ImportPendingResult },
} as const;
