import { randomUUID } from 'node:crypto';
import type { Category, RecordingStatus, StreamStats } from '../contract.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { StreamHub } from '../stream/stream-hub.js';
import { EventMarks } from './event-marks.js';
import { lossCounters } from '../samples/quality/loss-counters.js';
import { StreamRecording } from './stream-recording.js';

export interface RecordingServiceDeps {
  hub: StreamHub;
  store: SampleStore;
  bus: EventBus;
  log: Logger;
  deviceName: () => string;
  /** The project's HMAC key, if one is set; samples are signed with it. */
  hmacKey: () => Promise<string | undefined>;
  /** Called with the ids of saved samples (the upload queue picks up the queued ones). */
  onSaved: (ids: string[], queued: boolean) => void;
}

interface Session {
  status: RecordingStatus;
  parts: Array<{ rec: StreamRecording; badAtStart: number; startStats?: StreamStats | undefined }>;
  timer: NodeJS.Timeout | null;
  queue: boolean;
  finishing: Promise<RecordingStatus> | null;
  marks: EventMarks;
  /** performance.now() at start: event times are measured on a monotonic clock. */
  t0: number;
}

/**
 * Recordings started from the UI: one session can record several sources at once (two boards,
 * or a board and the microphone); each source becomes its own sample with the same label,
 * metadata and session id. A source that drops out ends its own sample as incomplete.
 */
export class RecordingService {
  readonly #sessions = new Map<string, Session>();
  /** Last stats per source: bad-line counts at start and stop give the rejected lines of a capture. */
  readonly #stats = new Map<string, StreamStats>();

  constructor(private readonly d: RecordingServiceDeps) {
    d.bus.on('stream.stats', (s) => this.#stats.set(s.sourceId, s));
  }

  async start(o: { sourceIds: string[]; label: string | null; category: Category; metadata?: Record<string, string> | undefined; lengthMs?: number | null | undefined; queue?: boolean | undefined }): Promise<RecordingStatus> {
    for (const s of this.#sessions.values()) {
      const busy = s.status.state === 'recording' ? o.sourceIds.find((id) => s.status.sourceIds.includes(id)) : undefined;
      if (busy) throw new CoreError('Busy', `${busy} is already being recorded; stop that recording first.`);
    }
    const sessionId = randomUUID();
    const parts: Session['parts'] = [];
    try {
      for (const sourceId of o.sourceIds) {
        await this.d.hub.start(sourceId);
        const info = this.d.hub.info(sourceId)!;
        const rec = await StreamRecording.start(this.d.hub, this.d.store, {
          sourceId, label: o.label, category: o.category, metadata: { ...o.metadata, session: sessionId },
          deviceName: this.d.deviceName(), deviceType: info.simulated ? 'SIMULATED' : sourceId.split(':')[0]!.toUpperCase(),
        });
        parts.push({ rec, badAtStart: this.#stats.get(sourceId)?.badLines ?? 0, startStats: this.#stats.get(sourceId) });
      }
    } catch (err) {
      for (const p of parts) await p.rec.discard();
      throw err;
    }
    const status: RecordingStatus = { sessionId, state: 'recording', sourceIds: o.sourceIds, startedAt: new Date().toISOString(), lengthMs: o.lengthMs ?? null, sampleIds: [], error: null, events: [] };
    const session: Session = { status, parts, timer: null, queue: o.queue ?? true, finishing: null, marks: new EventMarks(parts.length), t0: performance.now() };
    this.#sessions.set(sessionId, session);
    if (o.lengthMs) session.timer = setTimeout(() => void this.stop(sessionId).catch(() => {}), o.lengthMs);
    // When every source of the session has dropped out there is nothing left to wait for.
    for (const p of parts) p.rec.onInterrupt(() => {
      if (parts.every((q) => q.rec.interruption)) void this.stop(sessionId).catch(() => {});
    });
    this.d.bus.emit('record.state', status);
    return status;
  }

  stop(sessionId: string): Promise<RecordingStatus> {
    const s = this.#sessions.get(sessionId);
    if (!s) throw new CoreError('NotFound', `No recording ${sessionId}; it may have finished already.`);
    s.finishing ??= this.#finish(s);
    return s.finishing;
  }

  /** Marks an event in every source of the session at the rows they have reached now. */
  mark(sessionId: string, label: string | null): RecordingStatus {
    const s = this.#sessions.get(sessionId);
    if (!s) throw new CoreError('NotFound', `No recording ${sessionId}; it may have finished already.`);
    if (s.status.state !== 'recording') throw new CoreError('Busy', 'The recording is being saved; events can only be marked while it records.');
    s.marks.mark(label, Math.round(performance.now() - s.t0), s.parts.map((p) => p.rec.rows));
    return this.#update(s, { events: s.marks.events });
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.stop(id).catch(() => {})));
  }

  async #finish(s: Session): Promise<RecordingStatus> {
    if (s.timer) clearTimeout(s.timer);
    this.#update(s, { state: 'saving' });
    const hmacKey = await this.d.hmacKey().catch(() => undefined);
    const ids: string[] = [];
    const problems: string[] = [];
    for (const [index, { rec, badAtStart, startStats }] of s.parts.entries()) {
      const sourceId = rec.request.sourceId;
      const info = this.d.hub.info(sourceId) ?? rec.info;
      const stats = this.#stats.get(sourceId);
      try {
        const sample = await rec.finish({
          intervalMs: 1000 / info.rateHz,
          hmacKey,
          incomplete: rec.interruption !== null,
          queue: s.queue && rec.interruption === null,
          structuredLabels: s.marks.structuredLabels(index, rec.rows, rec.request.label),
          extra: { source: sourceId, rejected_lines: Math.max(0, (stats?.badLines ?? 0) - badAtStart), frequency_hz: info.rateHz, jitter_ms: stats?.jitterMs ?? null, ...lossCounters(stats, startStats) },
        });
        ids.push(sample.id);
      } catch (err) {
        problems.push(`${sourceId}: ${(err as Error).message}`);
        this.d.log.warn('recording could not be saved', { sourceId, error: String(err) });
      }
    }
    this.d.onSaved(ids, s.queue);
    this.#sessions.delete(s.status.sessionId);
    return this.#update(s, { state: problems.length && !ids.length ? 'failed' : 'saved', sampleIds: ids, error: problems.length ? problems.join('; ') : null });
  }

  #update(s: Session, patch: Partial<RecordingStatus>): RecordingStatus {
    s.status = { ...s.status, ...patch };
    this.d.bus.emit('record.state', s.status);
    return s.status;
  }
}
