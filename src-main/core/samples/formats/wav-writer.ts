import { open, type FileHandle } from 'node:fs/promises';
import { CoreError } from '../../errors.js';
import {
  WAV_HEADER_BYTES, WAV_MAX_DATA_BYTES, checkFormat, pcmBytes, wavHeader, type WavFormat, type WavHeaderInfo,
} from './wav.js';

/**
 * Streams 16-bit PCM to a file so an hour of audio never sits in memory. The header is
 * rewritten after every append, so a crash or unplug leaves a valid WAV of everything
 * written so far; finish() only has to fsync and close.
 */
export class WavFileWriter {
  readonly path: string;
  readonly sampleRate: number;
  readonly channels: number;
  #fh: FileHandle | null;
  #dataBytes = 0; // committed to disk
  #reserved = 0; // committed + queued, so appends get their positions in call order
  #queue: Promise<void> = Promise.resolve();
  #error: unknown = null;

  private constructor(path: string, fh: FileHandle, sampleRate: number, channels: number) {
    this.path = path;
    this.#fh = fh;
    this.sampleRate = sampleRate;
    this.channels = channels;
  }

  /** Creates `path` (never overwrites: an existing file is someone's recording). */
  static async create(path: string, fmt: WavFormat): Promise<WavFileWriter> {
    const { sampleRate, channels } = checkFormat(fmt);
    let fh: FileHandle;
    try {
      fh = await open(path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new CoreError('InvalidArguments', `${path} already exists: record into a new file name`);
      }
      throw err;
    }
    const w = new WavFileWriter(path, fh, sampleRate, channels);
    try {
      await writeAll(fh, wavHeader(sampleRate, channels, 0), 0);
    } catch (err) {
      await fh.close().catch(() => undefined);
      throw err;
    }
    return w;
  }

  get frames(): number {
    return this.#dataBytes / (2 * this.channels);
  }

  /** Samples are interleaved and copied before this returns, so the caller may reuse its array. */
  append(samples: Int16Array): Promise<void> {
    if (!this.#fh) return Promise.reject(new CoreError('InvalidArguments', `${this.path} is already finished: start a new recording`));
    if (samples.length % this.channels !== 0) {
      return Promise.reject(new CoreError('InvalidArguments', `${samples.length} samples do not make whole frames of ${this.channels} channels`));
    }
    if (this.#reserved + samples.byteLength > WAV_MAX_DATA_BYTES) {
      return Promise.reject(new CoreError('InvalidArguments', 'The recording reached the 4 GB WAV limit: stop and start a new file'));
    }
    const bytes = pcmBytes(samples);
    const at = WAV_HEADER_BYTES + this.#reserved;
    this.#reserved += bytes.length;
    const fh = this.#fh;
    return this.#enqueue(async () => {
      await writeAll(fh, bytes, at);
      this.#dataBytes += bytes.length;
      await writeAll(fh, wavHeader(this.sampleRate, this.channels, this.#dataBytes), 0);
    });
  }

  /**
   * Makes the header match what reached the disk, fsyncs and closes. After a failed write the
   * file is still closed as a valid (shorter) WAV, and then the write's error is thrown.
   */
  async finish(): Promise<WavHeaderInfo> {
    const fh = this.#fh;
    if (!fh) throw new CoreError('InvalidArguments', `${this.path} is already finished`);
    this.#fh = null; // refuse appends from now on; those already queued still run
    await this.#queue;
    try {
      await writeAll(fh, wavHeader(this.sampleRate, this.channels, this.#dataBytes), 0);
      await fh.sync();
    } finally {
      await fh.close();
    }
    if (this.#error) throw this.#error;
    const frames = this.frames;
    return {
      sampleRate: this.sampleRate, channels: this.channels, bitsPerSample: 16, dataOffset: WAV_HEADER_BYTES,
      dataBytes: this.#dataBytes, frames, durationMs: (frames * 1000) / this.sampleRate,
    };
  }

  /** For error paths: like finish() (the partial file stays valid) but never throws. */
  async abort(): Promise<void> {
    if (!this.#fh) return;
    await this.finish().catch(() => undefined);
  }

  #enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.#queue.then(async () => {
      if (this.#error) throw this.#error; // nothing after a failed write, or the file gets a hole
      try {
        await op();
      } catch (err) {
        this.#error = err;
        throw err;
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

async function writeAll(fh: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}
