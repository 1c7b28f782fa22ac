/**
 * Argument shapes that several of the method tables share. Parts of inputs, not shapes a caller
 * names: the contract's face (contract.ts) does not export them.
 */
import { z } from 'zod';
import { LABEL_CONTROL_CHARS, MAX_LABEL_CHARS } from './label-rule.js';

export const none = z.object({}).strict();
export const Ids = z.array(z.string().min(1)).min(1).max(10_000);
/** A job's id (split, export, bulk classify), chosen by the caller. */
export const JobId = z.string().min(1).max(100);
/** Milliseconds into a sample: at most a week. */
export const Ms = z.number().nonnegative().max(7 * 24 * 3600_000);
export const Label = z
  .string()
  .trim()
  .min(1, 'label must not be empty')
  .max(MAX_LABEL_CHARS, `a label is at most ${MAX_LABEL_CHARS} characters`)
  .refine((l) => !LABEL_CONTROL_CHARS.test(l), 'label must not contain control characters');
/** A local model's window stride (ms); null or absent: a quarter window. */
export const StrideMs = z.number().positive().max(600_000).nullable();
/** Below this top score a window is "uncertain" (default 0.6). */
export const Threshold = z.number().min(0).max(1);
/** Model workers for a bulk classification (each classifies one whole sample at a time); the CLI's --workers. */
export const ModelWorkers = z.number().int().min(1).max(16);
