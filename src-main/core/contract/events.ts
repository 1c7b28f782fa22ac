/** The event streams: what the core sends every UI unasked, each with its payload's schema. */
import { z } from 'zod';
import { Settings } from './app-schema.js';
import { AtProgress, AudioLevels, RecordingStatus, Source, StreamBatch, StreamInfo, StreamStats } from './capture-schema.js';
import { ClassifyState } from './classify-schema.js';
import { LiveModelStatus, ModelEntry, ModelVerdictBatch } from './model-schema.js';
import { RemoteDevice } from './remote-schema.js';
import { JobProgress } from './review-schema.js';
import { QueueStatus } from './sample-schema.js';
import { WireError } from './wire-schema.js';

export const events = {
  'stream.batch': StreamBatch,
  'stream.info': StreamInfo,
  /** At most a few times a second per stream. */
  'stream.stats': StreamStats,
  'stream.state': z.object({
    sourceId: z.string(),
    state: z.enum(['started', 'stopped', 'error']),
    error: WireError.optional(),
  }),
  'sources.changed': z.array(Source),
  'settings.changed': Settings,
  'queue.changed': QueueStatus,
  /** Which samples changed (state, label, added, deleted): the UI refetches what it shows. */
  'samples.changed': z.object({ ids: z.array(z.string()) }),
  'record.state': RecordingStatus,
  'at.progress': AtProgress,
  /** A watched folder could not import a file (vanished, unreadable, too big). */
  'watch.error': z.object({ folderId: z.string(), path: z.string(), message: z.string() }),
  /** Progress of a split or export job, a few times a second, then once with its final state. */
  'samples.progress': JobProgress,
  'audio.levels': AudioLevels,
  /** A source's platform connection changed (state, a sample request's progress, its name). */
  'remote.changed': RemoteDevice,
  /** A sample being classified on the platform, and its result (see ClassifyState). */
  'samples.classifyState': ClassifyState,
  /** A live model's verdicts, batched (at most ~20 batches a second per source). */
  'model.verdicts': ModelVerdictBatch,
  /** A live model started, stopped, failed, caught a sample, or its counts moved (at most ~4 a second). */
  'model.live': LiveModelStatus,
  'models.changed': z.array(ModelEntry),
  /** Sent by the desktop app's Help menu (not by the core): show the keyboard shortcuts, the diagnostics or the manual. */
  'app.showHelp': z.object({ panel: z.enum(['shortcuts', 'diagnostics', 'manual']) }),
} as const;
