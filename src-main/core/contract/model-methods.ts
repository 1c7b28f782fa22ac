import { z } from 'zod';
import { JobId, ModelWorkers, none, StrideMs, Threshold } from './method-args.js';
import { LiveModelRequest, LiveModelStatus, ModelEntry, ModelName, UnreadableModel } from './model-schema.js';
import { ModelTestResult } from './model-test-schema.js';
import { SampleQueryFilter } from './sample-schema.js';

/** The project's exported model run on this computer (model/: registry, worker, live windows, catch mode). */
export const modelMethods = {
  'models.list': { input: none, output: z.array(ModelEntry) },
  /** Model folders whose model.json is damaged: not in models.list, as they cannot be described or run; removing one is the way out. */
  'models.unreadable': { input: none, output: z.array(UnreadableModel) },
  /** Adds an export where it lies (the desktop window's file chooser or drop): its .zip, folder or .js. */
  'models.add': { input: z.object({ path: z.string().min(1).max(4096), name: ModelName.optional(), axes: z.number().int().min(1).max(64).optional() }).strict(), output: ModelEntry },
  /** Adds an export's .zip from its bytes (the browser shell's file chooser or drop). */
  'models.addBytes': {
    input: z.object({ fileName: z.string().min(1).max(255), bytes: z.instanceof(Uint8Array), name: ModelName.optional(), axes: z.number().int().min(1).max(64).optional() }).strict(),
    output: ModelEntry,
  },
  'models.remove': { input: z.object({ name: ModelName }).strict(), output: z.object({ removed: z.boolean() }) },
  /** For a build that does not say its axes: the person says. */
  'models.setAxes': { input: z.object({ name: ModelName, axes: z.number().int().min(1).max(64) }).strict(), output: ModelEntry },
  /** Runs a model on a streaming source (start it first); verdicts come as model.verdicts events. Replaces a model already on it. */
  'model.live.start': { input: LiveModelRequest, output: LiveModelStatus },
  'model.live.stop': { input: z.object({ sourceId: z.string().min(1) }).strict(), output: z.object({ stopped: z.boolean() }) },
  'model.live.status': { input: none, output: z.array(LiveModelStatus) },
  /**
   * How good a model is on the samples a filter matches, label by label (`capture-desk model test`
   * in the app): every sample classified window by window, its prediction compared with its label;
   * a job (progress as samples.progress op "test", cancelled by samples.cancel; the samples
   * classified before a cancel keep their results). Each result is kept with its sample, and one
   * kept from the same build, stride, threshold and content is used again, not classified again.
   * Two models: the same samples for both (unfit for either is unfit), and which the second fixed
   * or broke. InvalidArguments when a model cannot be tested (axes unknown, a stride that does not
   * fit it, a regression model compared) or when the same model is named twice.
   */
  'models.test': {
    input: z
      .object({ jobId: JobId, models: z.array(ModelName).min(1).max(2), filter: SampleQueryFilter, strideMs: StrideMs.optional(), threshold: Threshold.optional(), workers: ModelWorkers.optional() })
      .strict(),
    output: ModelTestResult,
  },
};
