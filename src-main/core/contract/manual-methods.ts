/** The user manual, shipped with the app and shown in its own window (Help → Manual, F1). */
import { z } from 'zod';
import { none } from './method-args.js';
import { ManualIndex, ManualPage, ManualPageName } from './manual-schema.js';

export const manualMethods = {
  'manual.index': { input: none, output: ManualIndex },
  'manual.page': { input: z.object({ name: ManualPageName }).strict(), output: ManualPage },
} as const;
