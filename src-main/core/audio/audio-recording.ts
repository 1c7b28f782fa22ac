import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Category, Sample, StructuredLabel } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { SampleStore } from '../samples/sample-store.js';
import { WavFileWriter } from '../samples/formats/wav-writer.js';
import { WAV_HEADER_BYTES } from '../samples/formats/wav.js';
import type { AudioInput } from './audio-input.js';
import type { PcmBatch } from './audio-supervisor.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { storageError } from '../fs/storage-error.js';
import { RECORDINGS_DIR, type AudioRecordingNote } from '../recordings/recordings-folder.js';
import { newSampleId } from '../samples/sample-id.js';
import { takeName } from '../samples/take-name.js';

export interface AudioRecordingOptions {
  label: string | null;
  category: Category;
  metadata?: Record<string, string>;
  /** Stop by itself after this much audio from the moment of start (pre-roll not counted); null = until stop(). */
  lengthMs?: number | null;
  /** Audio from before start() to keep (up to the supervisor's maxPreRollMs). */
  preRollMs?: number;
  /** Queue the sample for upload once saved. */
  queue?: boolean;
  /**
   * The take begins at begin(), not at start (a session whose other sources are still starting):
   * the pre-roll is taken and the length counted from then; no audio before it is kept.
   */
  beginsLater?: boolean;
  extra?: Record<string, unknown>;
  /**
   * Asked when the sample is saved, for what is only known then: the events marked while
   * recording (in this recording's frames) and whether to queue it.
   */
  atSave?: (frames: number, error: CoreError | null) => SaveDetails | Promise<SaveDetails>;
}

export interface SaveDetails {
  structuredLabels?: StructuredLabel[] | null;
  queue?: boolean;
  /** Why the take ended before it really began (the session around it failed to start): marked incomplete with this. */
  cutShort?: string | undefined;
  /** Said first in the sample's note (e.g. who asked for the take). */
  note?: string | undefined;
}

export interface RecordingOutcome {
  sample: Sample;
  /** Why the recording ended early (the sample is then marked incomplete). */
  error: CoreError | null;
}

/**
 * One recording from the running capture into a WAV sample: batches stream to disk through
 * WavFileWriter (memory stays flat, and the file is a valid WAV after every write), then the file
 * is committed to the sample store. If the capture fails mid-way (device unplugged, capture
 * process died) the part recorded so far becomes an incomplete sample.
 */
export class AudioRecording {
  readonly sampleRate: number;
  #preRollFrames = 0;
  /** Resolves when the sample is saved (at the set length, on stop(), or on a capture error). */
  readonly done: Promise<RecordingOutcome>;
  /** Resolves when it takes no more audio (its set length reached, stopped, or an error), before saving. */
  readonly ended: Promise<void>;
  readonly #o: AudioRecordingOptions;
  readonly #store: SampleStore;
  readonly #device: string;
  #limit = Infinity; // frames to write in total (Infinity = until stop, or until it begins)
  #begun = false;
  readonly #sup: AudioInput;
  readonly #reserved: { id: string; tempPath: string };
  #writer: WavFileWriter | null = null;
  #queued: Int16Array[] = []; // batches that came before the writer was open
  #frames = 0;
  #error: CoreError | null = null;
  #ending = false;
  #discarded = false;
  #finish!: () => void;
  readonly #offs: Array<() => void> = [];

  private constructor(sup: AudioInput, store: SampleStore, o: AudioRecordingOptions, sampleRate: number) {
    this.#o = o;
    this.#store = store;
    this.sampleRate = sampleRate;
    this.#device = sup.status.device?.name ?? 'unknown';
    this.#sup = sup;
    if (!o.beginsLater) this.begin();
    this.#offs.push(sup.errors.on((err) => this.#end(err)));
    // The capture was stopped or restarted with other settings: this recording is over.
    this.#offs.push(sup.states.on((st) => (st.state !== 'capturing' ? this.#end(null) : undefined)));
    // Recorded into the recordings folder beside a note of what it is, so a crash mid-way leaves
    // a WAV the next start turns into an incomplete sample (recording-recovery.ts).
    const id = newSampleId(); // the sample's id once saved
    this.#reserved = { id, tempPath: join(store.dataDir, RECORDINGS_DIR, `${id}.wav`) };
    this.ended = new Promise<void>((r) => (this.#finish = r));
    this.done = this.ended.then(() => this.#save());
  }

  /** Starts recording from the supervisor's running capture. */
  static async start(sup: AudioInput, store: SampleStore, o: AudioRecordingOptions): Promise<AudioRecording> {
    const st = sup.status;
    if (st.state !== 'capturing' || st.sampleRate === null) {
      throw new CoreError('Unavailable', 'The microphone is not capturing; start the capture (pick a device) before recording.');
    }
    if (o.lengthMs != null && !(o.lengthMs > 0)) throw new CoreError('InvalidArguments', `Recording length must be above 0 ms; got ${o.lengthMs}.`);
    const rec = new AudioRecording(sup, store, o, st.sampleRate);
    try {
      await mkdir(join(store.dataDir, RECORDINGS_DIR), { recursive: true });
      const note: AudioRecordingNote = { label: o.label, category: o.category, metadata: o.metadata ?? {}, sampleRate: st.sampleRate, device: rec.#device, started: new Date().toISOString(), pid: process.pid };
      await writeFileAtomic(rec.#notePath, JSON.stringify(note));
      rec.#writer = await WavFileWriter.create(rec.#reserved.tempPath, { sampleRate: st.sampleRate, channels: 1 });
    } catch (err) {
      rec.#unsubscribe();
      await rm(rec.#notePath, { force: true });
      throw err;
    }
    for (const chunk of rec.#queued.splice(0)) rec.#write(chunk);
    if (rec.#frames >= rec.#limit || rec.#error) rec.#end(rec.#error);
    return rec;
  }

  get frames(): number {
    return this.#frames;
  }

  get preRollFrames(): number {
    return this.#preRollFrames;
  }

  /** The take begins now (at once unless beginsLater): the pre-roll before this moment, then the audio from it. */
  begin(): void {
    if (this.#begun || this.#ending) return;
    this.#begun = true;
    // Pre-roll and subscription in the same tick: no batch is lost or written twice between them.
    const pre = this.#o.preRollMs ? this.#sup.preRoll(this.#o.preRollMs) : new Int16Array(0);
    this.#preRollFrames = pre.length;
    this.#limit = this.#o.lengthMs == null ? Infinity : pre.length + Math.round((this.#o.lengthMs * this.sampleRate) / 1000);
    if (pre.length) this.#take(pre);
    this.#offs.push(this.#sup.pcm.on((b: PcmBatch) => this.#take(b.pcm)));
  }

  get #notePath(): string {
    return join(this.#store.dataDir, RECORDINGS_DIR, `${this.#reserved.id}.audio.json`);
  }

  /** Ends the recording now; resolves with the saved sample. */
  stop(): Promise<RecordingOutcome> {
    this.#end(null);
    return this.done;
  }

  /** Ends the recording and keeps nothing (another source of the session could not start). */
  async discard(): Promise<void> {
    this.#discarded = true;
    this.#end(null);
    await this.done.catch(() => undefined);
  }

  #take(pcm: Int16Array): void {
    if (this.#ending) return;
    const room = this.#limit - this.#frames;
    const chunk = pcm.length > room ? pcm.subarray(0, room) : pcm;
    if (!this.#writer) {
      this.#queued.push(chunk.slice());
      this.#frames += chunk.length;
    } else {
      this.#frames += chunk.length;
      this.#write(chunk);
    }
    if (this.#frames >= this.#limit && this.#writer) this.#end(null);
  }

  #write(chunk: Int16Array): void {
    // The writer keeps order and copies the samples. A failed write (disk full) ends the recording
    // now, as a sensor recording does, rather than when someone presses stop; finish() reports it.
    this.#writer!.append(chunk).catch((err: unknown) => {
      const cause = storageError(err, dirname(this.#reserved.tempPath));
      this.#end(cause instanceof CoreError ? cause : new CoreError('Unavailable', cause.message));
    });
  }

  #end(err: CoreError | null): void {
    if (this.#ending) return;
    if (err) this.#error = err;
    if (!this.#writer) return; // start() ends it once the writer is open
    this.#ending = true;
    this.#unsubscribe();
    this.#finish();
  }

  #unsubscribe(): void {
    for (const off of this.#offs.splice(0)) off();
  }

  async #save(): Promise<RecordingOutcome> {
    try {
      const outcome = await this.#commit();
      await rm(this.#notePath, { force: true }); // saved: nothing is left to recover
      return outcome;
    } catch (err) {
      // Kept for recovery (the WAV and its note stay in the recordings folder) unless there was nothing to keep.
      if (!this.#keptForRecovery) await rm(this.#notePath, { force: true });
      throw err;
    }
  }

  #keptForRecovery = false;

  async #commit(): Promise<RecordingOutcome> {
    const writer = this.#writer!;
    let writeError: unknown = null;
    const info = await writer.finish().catch(async (e: unknown) => {
      writeError = e;
      return null;
    });
    if (writeError || !info) {
      // The WAV is valid up to its last whole write: it stays with its note for the next start
      // (or "capture-desk samples recover") rather than being deleted with the error.
      this.#keptForRecovery = true;
      const cause = storageError(writeError, dirname(this.#reserved.tempPath));
      // What reached the disk (as recovery counts it: whole 16-bit frames after the header, a
      // partly written batch included), not what the microphone delivered.
      const size = await stat(this.#reserved.tempPath).then((st) => st.size, () => 0);
      const onDisk = Math.floor(Math.max(0, size - WAV_HEADER_BYTES) / 2);
      throw new CoreError(cause instanceof CoreError ? cause.code : 'Unavailable',
        `${cause.message} The ${onDisk} frames recorded before that are kept in ${this.#reserved.tempPath}; once the problem is fixed they become an incomplete sample at the next start of Capture Desk, or now with "capture-desk samples recover".`,
        { keptIn: this.#reserved.tempPath, rows: onDisk });
    }
    if (this.#discarded) {
      // Only a person's "Discard", or a session that could not start before any audio arrived.
      await rm(this.#reserved.tempPath, { force: true });
      throw new CoreError('Busy', 'The recording was discarded.');
    }
    if (info.frames === 0) {
      await rm(this.#reserved.tempPath, { force: true });
      throw this.#error ?? new CoreError('Unavailable', 'Nothing was recorded: no audio arrived from the microphone.');
    }
    const rate = this.sampleRate;
    const label = this.#o.label;
    const late = (await this.#o.atSave?.(info.frames, this.#error)) ?? {};
    const sample = await this.#store.commitFile(this.#reserved, {
      name: takeName(label, `${this.#reserved.id.slice(0, 8)}.wav`),
      kind: 'audio',
      label,
      category: this.#o.category,
      metadata: this.#o.metadata ?? {},
      lengthMs: info.durationMs,
      incomplete: this.#error !== null || late.cutShort !== undefined,
      queue: late.queue ?? this.#o.queue ?? false,
      structuredLabels: late.structuredLabels ?? null,
      note: [late.note, this.#error || late.cutShort ? `incomplete: ${[late.cutShort, this.#error?.message].filter(Boolean).join('; ')}` : null].filter(Boolean).join('; ') || null,
      extra: {
        rows: info.frames,
        interval_ms: 1000 / rate,
        sample_rate: rate,
        device: this.#device,
        ...(this.preRollFrames ? { pre_roll_ms: (this.preRollFrames * 1000) / rate } : {}),
        ...this.#o.extra,
      },
    });
    return { sample, error: this.#error };
  }
}
