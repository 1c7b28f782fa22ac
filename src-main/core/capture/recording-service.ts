import { randomUUID } from 'node:crypto';
import type { Category, PlatformRequestInfo, RecordingStatus, StreamStats } from '../contract/contract.js';
import { CoreError, toWireError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { StreamHub } from '../stream/stream-hub.js';
import type { AudioInput } from '../audio/audio-input.js';
import { AUDIO_PREFIX } from '../audio/microphones.js';
import { audioPart, sensorPart, type CapturePart } from './capture-parts.js';
import { EventMarks } from './event-marks.js';
import { readSigningKey, type SigningKey } from '../secrets/signing-key.js';

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
  /** Microphones ("audio:" sources) record from here; absent = this shell has no audio. */
  audio?: { input: AudioInput; preRollMs: () => number } | undefined;
}

interface Session {
  status: RecordingStatus;
  parts: CapturePart[];
  timer: NodeJS.Timeout | null;
  queue: boolean;
  finishing: Promise<RecordingStatus> | null;
  marks: EventMarks;
  /** Fills the stretches between marked events. */
  label: string | null;
  /** performance.now() at start: event times are measured on a monotonic clock. */
  t0: number;
  /** Put first in every saved sample's note (e.g. who asked for the take). */
  note: string | undefined;
  /** Signs with this key when the project has none set here (a platform request carries one). */
  fallbackHmacKey: string | undefined;
  /** Resolves with the final status once the session is saved or failed. */
  settled: Promise<RecordingStatus>;
  settle: (s: RecordingStatus) => void;
  /** Stopped before its set length for a reason that makes the take incomplete (see stop()). */
  cutShort?: string | undefined;
  /** Parts that hold their set length. */
  full: Set<CapturePart>;
}

/**
 * How long after the host's timer a take may wait for the readings that complete it. Rows reach
 * us in batches a little after the board sent them (usually ~20 ms); a busy machine delays them
 * more. A source that sends nothing meanwhile (stalled, unplugged) is saved with what it has.
 */
const SENSOR_TAIL_MS = 2000;

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
    // A source started again has a new reader whose counters start from zero: the old run's last
    // stats would make a take's start counts wrong until its first stats arrive.
    d.bus.on('stream.state', (s) => void (s.state === 'stopped' && this.#stats.delete(s.sourceId)));
  }

  async start(o: {
    sourceIds: string[]; label: string | null; category: Category; metadata?: Record<string, string> | undefined;
    lengthMs?: number | null | undefined; queue?: boolean | undefined; preRollMs?: number | undefined;
    /** Internal callers only (not in the contract): see Session. */
    note?: string | undefined; fallbackHmacKey?: string | undefined; platform?: PlatformRequestInfo | undefined;
  }): Promise<RecordingStatus> {
    for (const s of this.#sessions.values()) {
      const busy = s.status.state === 'recording' ? o.sourceIds.find((id) => s.status.sourceIds.includes(id)) : undefined;
      if (busy) throw new CoreError('Busy', `${busy} is already being recorded; stop that recording first.`);
    }
    const sessionId = randomUUID();
    const parts: Session['parts'] = [];
    // Each source records from the moment it has started, so that what it recorded is kept if a
    // later one fails to start (issue 13); once all have started, every take begins at once (begin()).
    // The microphone goes last: it warms up for a while (a board records meanwhile, for nothing).
    const order = [...o.sourceIds.filter((id) => !id.startsWith(AUDIO_PREFIX)), ...o.sourceIds.filter((id) => id.startsWith(AUDIO_PREFIX))];
    try {
      for (const sourceId of order) {
        await this.d.hub.start(sourceId);
        const req = { sourceId, label: o.label, category: o.category, metadata: { ...o.metadata, session: sessionId } };
        if (sourceId.startsWith(AUDIO_PREFIX)) {
          const audio = this.d.audio;
          if (!audio) throw new CoreError('Unavailable', 'This shell cannot record from microphones.');
          parts.push(await audioPart(audio.input, this.d.store, { ...req, lengthMs: o.lengthMs ?? null, preRollMs: o.preRollMs ?? audio.preRollMs() }));
        } else {
          parts.push(await sensorPart(this.d.hub, this.d.store, { ...req, deviceName: this.d.deviceName(), lengthMs: o.lengthMs ?? null }, () => this.#stats.get(sourceId)));
        }
      }
    } catch (err) {
      // Sources that started before another failed: what they already recorded is kept (local,
      // not queued, marked incomplete with the reason); only a part with nothing in it is removed.
      const failedSource = order[parts.length] ?? 'a source';
      const why = (err as Error).message;
      const kept: string[] = [];
      const lost: string[] = [];
      let signing: SigningKey | null = null;
      const keptUnsigned: string[] = [];
      for (const p of parts) {
        if (p.rows === 0) {
          await p.discard();
          continue;
        }
        signing ??= await readSigningKey(() => this.d.hmacKey(), this.d.log, 'what a session that failed to start recorded');
        const unsigned = signs(p) ? signing.unsigned : null;
        const cutShort = `the recording session could not start because ${failedSource} failed (${why}); this is what ${p.sourceId} recorded while the others were starting${unsigned ? `; ${unsigned}` : ''}`;
        const sample = await p.finish({ hmacKey: signing.key, queue: false, atLength: false, structuredLabels: () => null, cutShort }).catch((e: unknown) => {
          this.d.log.error('could not keep what a source recorded before the session failed to start', { sourceId: p.sourceId, error: String(e) });
          lost.push(`${p.sourceId} (${(e as Error).message})`);
          return null;
        });
        if (sample) {
          kept.push(p.sourceId);
          if (unsigned) keptUnsigned.push(p.sourceId);
          this.d.onSaved((Array.isArray(sample) ? sample : [sample]).map((x) => x.id), false);
        }
      }
      if (!kept.length && !lost.length) throw err;
      const after = [
        kept.length ? `What ${kept.join(' and ')} recorded meanwhile is kept as an incomplete local sample.` : '',
        keptUnsigned.length && signing?.unsigned ? `What ${keptUnsigned.join(' and ')} recorded was ${signing.unsigned}.` : '',
        lost.length ? `Could not keep what ${lost.join(' and ')} recorded.` : '',
      ].filter(Boolean).join(' ');
      throw new CoreError(err instanceof CoreError ? err.code : 'Unavailable', `${why.replace(/\.?$/, '.')} ${after}`, err instanceof CoreError ? err.details : undefined);
    }
    for (const p of parts) p.begin();
    const status: RecordingStatus = { sessionId, state: 'recording', sourceIds: o.sourceIds, startedAt: new Date().toISOString(), lengthMs: o.lengthMs ?? null, sampleIds: [], queued: 0, held: 0, error: null, events: [], interruptions: [], platform: o.platform ?? null };
    let settle!: (s: RecordingStatus) => void;
    const settled = new Promise<RecordingStatus>((r) => (settle = r));
    const session: Session = { status, parts, timer: null, queue: o.queue ?? true, finishing: null, marks: new EventMarks(parts.length), label: o.label, t0: performance.now(), note: o.note, fallbackHmacKey: o.fallbackHmacKey, settled, settle, full: new Set() };
    this.#sessions.set(sessionId, session);
    if (o.lengthMs) {
      // The take ends when every source holds its length in its own readings (a busy host's
      // timer must not make it longer or shorter); the timer only says when to stop waiting.
      for (const p of parts) p.onFull(() => {
        session.full.add(p);
        if (session.full.size === parts.length) void this.#stop(sessionId, true).catch(() => {});
      });
      session.timer = setTimeout(() => void this.#atLength(session).catch(() => {}), o.lengthMs);
    }
    for (const p of parts) p.onInterrupt((err) => {
      // Said at once (unplugged, busy), not only when the session is saved.
      if (session.status.state === 'recording') this.#update(session, { interruptions: [...session.status.interruptions, { sourceId: p.sourceId, error: toWireError(err) }] });
      // When every source of the session has dropped out there is nothing left to wait for.
      if (parts.every((q) => q.interruption)) void this.stop(sessionId).catch(() => {});
    });
    this.d.bus.emit('record.state', status);
    return status;
  }

  /**
   * `cutShort`: the take ends before what was asked of it for this reason (the platform asked for
   * a length and Capture Desk is closing): kept as an incomplete local sample, not queued.
   */
  stop(sessionId: string, o: { cutShort?: string } = {}): Promise<RecordingStatus> {
    const s = this.#sessions.get(sessionId);
    if (s && o.cutShort && !s.finishing) {
      s.cutShort = o.cutShort;
      s.queue = false;
    }
    return this.#stop(sessionId, false);
  }

  /**
   * The session's timer ran out: on a busy host its sources' last readings may still be on the
   * way (a 500 ms take of a 100 Hz board once had 48 rows at this moment). Each source that does
   * not yet hold its length in its own readings gets up to SENSOR_TAIL_MS more.
   */
  async #atLength(s: Session): Promise<RecordingStatus> {
    const end = performance.now() + SENSOR_TAIL_MS;
    const waiting = () => s.parts.some((p) => !s.full.has(p) && !p.interruption);
    while (s.finishing === null && performance.now() < end && waiting()) await new Promise((r) => setTimeout(r, 5));
    return this.#stop(s.status.sessionId, true);
  }

  /** `atLength`: the set length ran out (sources that count their own length may finish it). */
  #stop(sessionId: string, atLength: boolean): Promise<RecordingStatus> {
    const s = this.#sessions.get(sessionId);
    if (!s) throw new CoreError('NotFound', `No recording ${sessionId}; it may have finished already.`);
    s.finishing ??= this.#finish(s, atLength);
    return s.finishing;
  }

  /** Marks an event in every source of the session at the rows they have reached now. */
  mark(sessionId: string, label: string | null): RecordingStatus {
    const s = this.#sessions.get(sessionId);
    if (!s) throw new CoreError('NotFound', `No recording ${sessionId}; it may have finished already.`);
    if (s.status.state !== 'recording') throw new CoreError('Busy', 'The recording is being saved; events can only be marked while it records.');
    s.marks.mark(label, Math.round(performance.now() - s.t0), s.parts.map((p) => p.rows));
    return this.#update(s, { events: s.marks.events });
  }

  /** The session's final status (saved or failed), however it ends: stopped, at its length, or its sources gone. */
  settled(sessionId: string): Promise<RecordingStatus> {
    const s = this.#sessions.get(sessionId);
    if (!s) throw new CoreError('NotFound', `No recording ${sessionId}; it may have finished already.`);
    return s.settled;
  }

  /** Sessions still recording or saving, oldest first. */
  active(): RecordingStatus[] {
    return [...this.#sessions.values()].map((s) => s.status).filter((st) => st.state === 'recording' || st.state === 'saving');
  }

  /** A session is recording `sourceId` now (it must not be restarted or switched under it). */
  isRecording(sourceId: string): boolean {
    return [...this.#sessions.values()].some((s) => s.status.sourceIds.includes(sourceId));
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.stop(id).catch(() => {})));
  }

  async #finish(s: Session, atLength: boolean): Promise<RecordingStatus> {
    if (s.timer) clearTimeout(s.timer);
    this.#update(s, { state: 'saving' });
    const problems: string[] = [];
    // The take is saved either way; unsigned is said out loud, never silent.
    const { key: hmacKey, unsigned } = await readSigningKey(async () => (await this.d.hmacKey()) ?? s.fallbackHmacKey, this.d.log, 'a recording session');
    if (unsigned) problems.push(unsigned);
    const ids: string[] = [];
    let queued = 0;
    let held = 0;
    const label = s.label;
    // Parts finish together: a microphone waiting out its last buffered audio does not hold up a board.
    const results = await Promise.allSettled(s.parts.map((part, index) => part.finish({
      hmacKey,
      queue: s.queue,
      atLength,
      structuredLabels: (rows, from) => s.marks.structuredLabels(index, rows, label, from),
      note: s.note,
      cutShort: s.cutShort,
    })));
    for (const [index, r] of results.entries()) {
      const sourceId = s.parts[index]!.sourceId;
      try {
        if (r.status === 'rejected') throw r.reason;
        // A board that restarted mid-take leaves one sample per part.
        for (const sample of Array.isArray(r.value) ? r.value : [r.value]) {
          ids.push(sample.id);
          if (sample.state === 'queued') queued++;
          if (sample.heldBack) held++;
        }
      } catch (err) {
        problems.push(`${sourceId}: ${(err as Error).message}`);
        this.d.log.warn('recording could not be saved', { sourceId, error: String(err) });
      }
    }
    this.d.onSaved(ids, s.queue);
    this.#sessions.delete(s.status.sessionId);
    const final = this.#update(s, { state: !ids.length && problems.length ? 'failed' : 'saved', sampleIds: ids, queued, held, error: problems.length ? problems.join('; ') : null });
    s.settle(final);
    return final;
  }

  #update(s: Session, patch: Partial<RecordingStatus>): RecordingStatus {
    s.status = { ...s.status, ...patch };
    this.d.bus.emit('record.state', s.status);
    return s.status;
  }
}

/** Microphone takes are WAV, which carries no signature: only sensor samples are signed. */
function signs(p: CapturePart): boolean {
  return !p.sourceId.startsWith(AUDIO_PREFIX);
}
