import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AudioInput } from '../audio/audio-input.js';
import { StreamResampler } from '../audio/resampler.js';
import type { Classification, RecordingStatus, Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { StreamHub } from '../stream/stream-hub.js';
import { CatchKeeper } from './catch-keeper.js';
import { isBackgroundLabel } from './catch-spans.js';
import { saveCaught } from './caught-sample.js';
import { LiveModel, type LiveRows, type WindowMeta } from './live-model.js';
import { classifyInWorker, stopFlag } from './classify-sample.js';
import { ModelPool } from './model-pool.js';
import { OfflineSessions } from './offline-sessions.js';
import { ModelRegistry } from './model-registry.js';
import type { SpawnModelWorker } from './model-runner.js';
import type { LiveModelRequest, LiveModelStatus, ModelEntry, ModelVerdict } from '../contract/model-schema.js';
import { ModelSession } from './model-session.js';
import { settledRate } from './settled-rate.js';

const AUDIO_PREFIX = 'audio:';
/** At most one model.verdicts batch per source this often; a verdict after a quiet spell goes out at once. */
const VERDICT_FLUSH_MS = 50;
const STATUS_FLUSH_MS = 250;
const MAX_ZIP_BYTES = 64 * 1024 * 1024;

export interface ModelServiceDeps {
  dataDir: string;
  hub: StreamHub;
  audio?: Pick<AudioInput, 'pcm' | 'errors' | 'status'> | undefined;
  store: SampleStore;
  bus: EventBus;
  log: Logger;
  spawn: SpawnModelWorker;
  deviceName: () => string;
  /** Keeps a local result beside the platform's (ClassificationStore.keep). */
  keep: (c: Classification) => void;
  /** Caught samples were saved (queued: they went into the upload queue). */
  onSaved: (ids: string[], queued: boolean) => void;
}

interface Running {
  live: LiveModel;
  status: LiveModelStatus;
  keeper: CatchKeeper | null;
  pending: ModelVerdict[];
  verdictTimer: NodeJS.Timeout | null;
  lastFlush: number;
  statusTimer: NodeJS.Timeout | null;
}

/**
 * The app's side of "the project's model runs here": the registry of added models, models running
 * on live sources (verdicts batched to the UI, catch mode saving misses as ordinary samples), and
 * takes recorded while a model runs classified by it and kept with the sample.
 */
export class ModelService {
  readonly registry: ModelRegistry;
  readonly #running = new Map<string, Running>();
  /** Recording sessions that started while models ran: which model on which source. */
  readonly #takes = new Map<string, Map<string, { model: string; strideMs: number; threshold: number }>>();
  #chain: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #offline: OfflineSessions;

  constructor(private readonly d: ModelServiceDeps) {
    this.registry = new ModelRegistry(d.dataDir, d.spawn, d.log);
    this.#offline = new OfflineSessions({ registry: this.registry, spawn: d.spawn, log: d.log });
    d.bus.on('record.state', (s) => this.#recordState(s));
  }

  list(): Promise<ModelEntry[]> {
    return this.registry.list();
  }

  async add(path: string, o: { name?: string | undefined; axes?: number | undefined; source?: string }): Promise<ModelEntry> {
    const m = await this.registry.add(path, o);
    await this.#changed();
    return m;
  }

  /** The browser shell sends the zip's bytes: written to a temp file beside the models, added, removed. */
  async addBytes(fileName: string, bytes: Uint8Array, o: { name?: string | undefined; axes?: number | undefined }): Promise<ModelEntry> {
    if (bytes.length > MAX_ZIP_BYTES) throw new CoreError('InvalidArguments', `${fileName} is ${Math.round(bytes.length / 1e6)} MB; an export sent from the browser may be up to 64 MB. Add it on the lab station with "capture-desk model add".`);
    if (!/\.zip$/i.test(fileName)) throw new CoreError('InvalidArguments', `${fileName} is not a .zip: add the zip the platform's deployment page made (WebAssembly).`);
    const dir = join(this.d.dataDir, 'models', `.upload-${randomBytes(6).toString('hex')}`);
    await mkdir(dir, { recursive: true });
    try {
      const path = join(dir, fileName.replace(/[/\\]/g, '_'));
      await writeFile(path, bytes);
      // Without a name the registry suggests one from the file name, made safe ("gestures (1).zip" → "gestures-1-").
      return await this.add(path, { name: o.name, axes: o.axes, source: `${fileName} (sent by the browser)` });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async remove(name: string): Promise<{ removed: boolean }> {
    for (const [sourceId, r] of this.#running) if (r.status.model === name) await this.liveStop(sourceId);
    await this.#offline.closeModel(name);
    await this.registry.remove(name);
    await this.#changed();
    return { removed: true };
  }

  async setAxes(name: string, axes: number): Promise<ModelEntry> {
    await this.#offline.closeModel(name); // it was opened with the old description
    const m = await this.registry.setAxes(name, axes);
    await this.#changed();
    return m;
  }

  async #changed(): Promise<void> {
    this.d.bus.emit('models.changed', await this.registry.list());
  }

  // ---------- live ----------

  liveStatus(): LiveModelStatus[] {
    return [...this.#running.values()].map((r) => this.#snapshot(r));
  }

  async liveStart(req: LiveModelRequest): Promise<LiveModelStatus> {
    if (this.#closed) throw new CoreError('Unavailable', 'The app is closing.');
    if (this.#running.has(req.sourceId)) await this.liveStop(req.sourceId);
    const session = await ModelSession.open<WindowMeta>(this.registry, req.model, this.d.spawn, this.d.log);
    let rows: ReturnType<ModelService['rowsOf']>;
    try {
      rows = this.rowsOf(req.sourceId, session.entry.description.frequencyHz);
    } catch (err) {
      await session.close();
      throw err;
    }
    // A board opened a moment ago has a rate measured from a few lines: it is awaited until it holds still.
    if (!rows.audio && this.d.hub.measuresRate(req.sourceId)) {
      const settled = await settledRate(this.d.bus, req.sourceId).result;
      if (settled) rows.rateHz = settled.hz;
    }
    const threshold = req.threshold ?? 0.6;
    const entry = session.entry;
    let live: LiveModel;
    const status: LiveModelStatus = {
      sourceId: req.sourceId, model: entry.name, modelHash: entry.hash, state: 'running', labels: entry.description.labels,
      windowMs: entry.description.windowMs, strideMs: 0, threshold, rateHz: rows.rateHz, notes: [], windows: 0, skipped: 0, catching: null, error: null,
    };
    const run = { status, keeper: null, pending: [], verdictTimer: null, statusTimer: null, lastFlush: 0 } as unknown as Running;
    const c = req.catch;
    if (c) {
      status.catching = { label: c.label, caught: 0, summary: 'caught nothing', capped: 0, lastSampleId: null };
      run.keeper = new CatchKeeper(
        { expected: c.label, background: c.background ?? isBackgroundLabel(c.label), threshold, marginMs: c.marginMs },
        { perMinuteCap: c.perMinute, axes: rows.axisNames.length, rateHz: rows.rateHz, windowMs: entry.description.windowMs },
        (span, values, count) => {
          const queue = c.queue;
          const src = { audio: rows.audio, rateHz: rows.rateHz, sensors: rows.sensors, deviceName: this.d.deviceName(), deviceType: 'CAPTURE_DESK' };
          return saveCaught(this.d.store, src, span, { values, count }, { model: entry, label: c.label, category: c.category, queue });
        },
        {
          caught: (_span, sample: Sample) => {
            this.d.onSaved([sample.id], sample.state === 'queued');
            this.d.bus.emit('samples.changed', { ids: [sample.id] });
            const k = run.keeper!;
            status.catching = { label: c.label, caught: k.saved.length, summary: k.summary(), capped: k.catcher.capped, lastSampleId: sample.id };
            this.#statusSoon(run, true);
          },
          failed: (_span, err) => {
            this.d.log.error('a caught span could not be saved', { sourceId: req.sourceId, error: String(err) });
            status.error = `A caught moment could not be saved: ${err instanceof Error ? err.message : String(err)}`;
            this.#statusSoon(run, true);
          },
        },
      );
    }
    try {
      live = new LiveModel(session, rows, { strideMs: req.strideMs ?? null, threshold }, {
        verdict: (v) => {
          run.pending.push(v);
          run.keeper?.verdict(v);
          // A throttle, not a delay: a verdict that comes VERDICT_FLUSH_MS after the last batch is sent
          // now (the strip's latency), a burst is gathered into one batch (the UI's message rate).
          const wait = run.lastFlush + VERDICT_FLUSH_MS - performance.now();
          if (wait <= 0 && !run.verdictTimer) this.#flushVerdicts(run);
          else run.verdictTimer ??= setTimeout(() => this.#flushVerdicts(run), Math.max(0, wait));
          this.#statusSoon(run, false);
        },
        windowError: (index, code) => this.d.log.warn('model window error', { sourceId: req.sourceId, index, code }),
        restarted: (reason) => {
          status.notes = [...status.notes, `The model stopped (${reason}) and was started again.`];
          this.#statusSoon(run, true);
        },
        failed: (reason) => void this.#end(req.sourceId, run, reason),
        ended: (err) => void this.#end(req.sourceId, run, `The source stopped: ${err instanceof Error ? err.message : String(err)}`),
        rows: run.keeper ? (values, n, at) => run.keeper!.rows(values, n, at) : undefined,
      });
    } catch (err) {
      await session.close();
      throw err;
    }
    run.live = live;
    status.strideMs = live.fit.strideMs;
    status.notes = rows.note ? [rows.note, ...live.fit.notes] : live.fit.notes;
    this.#running.set(req.sourceId, run);
    this.d.bus.emit('model.live', this.#snapshot(run));
    return this.#snapshot(run);
  }

  async liveStop(sourceId: string): Promise<{ stopped: boolean }> {
    const run = this.#running.get(sourceId);
    if (!run) return { stopped: false };
    await this.#end(sourceId, run, null);
    return { stopped: true };
  }

  async #end(sourceId: string, run: Running, error: string | null): Promise<void> {
    if (this.#running.get(sourceId) !== run) return;
    this.#running.delete(sourceId);
    await run.live.stop();
    this.#flushVerdicts(run);
    await run.keeper?.flush();
    await run.live.session.close();
    run.status.state = error ? 'failed' : 'stopped';
    run.status.error = error ?? run.status.error;
    if (run.statusTimer) clearTimeout(run.statusTimer);
    if (run.keeper && run.status.catching) run.status.catching = { ...run.status.catching, caught: run.keeper.saved.length, summary: run.keeper.summary(), capped: run.keeper.catcher.capped };
    this.d.bus.emit('model.live', this.#snapshot(run));
  }

  #flushVerdicts(run: Running): void {
    if (run.verdictTimer) clearTimeout(run.verdictTimer);
    run.verdictTimer = null;
    run.lastFlush = performance.now();
    if (!run.pending.length) return;
    const verdicts = run.pending.splice(0);
    this.d.bus.emit('model.verdicts', { sourceId: run.status.sourceId, model: run.status.model, verdicts });
  }

  #statusSoon(run: Running, now: boolean): void {
    if (now) {
      if (run.statusTimer) clearTimeout(run.statusTimer);
      run.statusTimer = null;
      this.d.bus.emit('model.live', this.#snapshot(run));
      return;
    }
    run.statusTimer ??= setTimeout(() => {
      run.statusTimer = null;
      if (this.#running.has(run.status.sourceId)) this.d.bus.emit('model.live', this.#snapshot(run));
    }, STATUS_FLUSH_MS);
  }

  #snapshot(run: Running): LiveModelStatus {
    return { ...run.status, windows: run.live?.windows ?? 0, skipped: run.live?.skipped ?? 0, notes: [...run.status.notes] };
  }

  /**
   * A streaming source's rows for a model: a microphone's samples from the capture, others from the
   * hub. A microphone captured at another rate than the model's is brought to the model's rate with
   * the capture's own band-limited resampler (linear interpolation, fine for slow sensor signals,
   * would fold audio above the new Nyquist back into what the model hears).
   */
  rowsOf(sourceId: string, modelHz: number): LiveRows & { sensors: Array<{ name: string; units: string }>; note?: string } {
    const info = this.d.hub.info(sourceId);
    if (!info) throw new CoreError('NotFound', `"${sourceId}" is not streaming; start it in the live view first.`);
    if (sourceId.startsWith(AUDIO_PREFIX)) {
      const audio = this.d.audio;
      if (!audio) throw new CoreError('Unavailable', 'This shell has no audio capture.');
      const captured = audio.status.sampleRate ?? info.rateHz;
      const convert = Number.isInteger(captured) && Number.isInteger(modelHz) && Math.abs(captured / modelHz - 1) > 0.01;
      return {
        name: 'the microphone', axisNames: ['audio'], rateHz: convert ? modelHz : captured, audio: true, sensors: [{ name: 'audio', units: '' }],
        ...(convert ? { note: `The microphone is captured at ${captured} Hz and resampled to the model's ${modelHz} Hz.` } : {}),
        subscribe: (onRows, onEnd) => {
          const rs = convert ? new StreamResampler(captured, modelHz) : null;
          const offs = [
            audio.pcm.on((b) => {
              if (!rs) return onRows(b.pcm, b.pcm.length);
              const out = rs.process(Float32Array.from(b.pcm));
              if (out.length) onRows(out, out.length);
            }),
            audio.errors.on((err) => onEnd(err)),
          ];
          return () => offs.forEach((off) => off());
        },
      };
    }
    return {
      name: sourceId.replace(/^serial:/, ''), axisNames: info.axes.map((a) => a.name), rateHz: info.rateHz, audio: false,
      sensors: info.axes.map((a) => ({ name: a.name, units: a.units })),
      // `at`: verdicts on the stream's axis, where the live view's rows are, however long it ran before the model.
      subscribe: (onRows, onEnd) => this.d.hub.tap(sourceId, (values, n, _info, _timing, at) => onRows(values, n, at), onEnd),
    };
  }

  // ---------- takes recorded while a model runs ----------

  #recordState(s: RecordingStatus): void {
    if (s.state === 'recording' && !this.#takes.has(s.sessionId)) {
      const models = new Map<string, { model: string; strideMs: number; threshold: number }>();
      for (const id of s.sourceIds) {
        const r = this.#running.get(id);
        if (r) models.set(id, { model: r.status.model, strideMs: r.status.strideMs, threshold: r.status.threshold });
      }
      if (models.size) this.#takes.set(s.sessionId, models);
      return;
    }
    if (s.state !== 'saved' && s.state !== 'failed') return;
    const models = this.#takes.get(s.sessionId);
    this.#takes.delete(s.sessionId);
    if (!models || !s.sampleIds.length) return;
    // One at a time, after the take is on disk: the take's own rows, windows from its start.
    this.#chain = this.#chain.then(() => this.#classifyTakes(s.sampleIds, [...models.values()]));
  }

  async #classifyTakes(ids: string[], models: Array<{ model: string; strideMs: number; threshold: number }>): Promise<void> {
    for (const id of ids) {
      let sample: Sample;
      try {
        sample = this.d.store.get(id);
      } catch {
        continue;
      }
      for (const m of models) {
        try {
          const c = await this.classifySample(sample, m.model, { strideMs: m.strideMs, threshold: m.threshold });
          this.d.log.info('take classified on this computer', { id, model: m.model, windows: c.blocks[0]?.windows.length });
          break;
        } catch (err) {
          // A model that does not fit this part of a multi-source take (other axes) is not news.
          this.d.log.warn('take not classified on this computer', { id, model: m.model, error: String(err) });
        }
      }
    }
  }

  /**
   * Classifies a sample in the data folder with a local model and keeps the result with it. Calls
   * made at once run at once, each sample whole in a worker of its own (the bulk action makes as
   * many calls at once as it wants workers).
   */
  async classifySample(sample: Sample, model: string, o: { strideMs?: number | null; threshold?: number; signal?: AbortSignal } = {}): Promise<Classification> {
    // Read, decoded and windowed in the worker: this process stays free meanwhile.
    const stop = stopFlag(o.signal);
    let c: Classification;
    try {
      c = await this.#offline.use(model, (session) => classifyInWorker(this.d.store, session, sample, { strideMs: o.strideMs ?? null, threshold: o.threshold ?? 0.6, stop: stop.flag }));
    } finally {
      stop.release();
    }
    this.d.keep(c);
    this.d.bus.emit('samples.changed', { ids: [sample.id] });
    return c;
  }

  /** Up to `workers` workers of an added model for a bulk run of its own (a model test); the caller closes it. */
  pool(model: string, workers: number): Promise<ModelPool> {
    return ModelPool.of(this.registry, model, this.d.spawn, this.d.log, workers);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const [id, r] of [...this.#running]) await this.#end(id, r, null);
    await this.#chain;
    await this.#offline.close();
  }
}
