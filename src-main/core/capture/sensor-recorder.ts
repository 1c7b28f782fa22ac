import { createHmac, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Encoder } from 'cbor-x';
import { CoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { storageError } from '../fs/storage-error.js';
import { ZERO_SIGNATURE } from '../samples/formats/acquisition.js';
import type { RowTiming } from '../stream/stream-hub.js';
import { arrayHeader, encodeRows } from './cbor-rows.js';
import { TimingLog } from './recorded-rate.js';
import { completeRowsIn } from './recording-rows.js';

const cbor = new Encoder({ useRecords: false, variableMapSize: true });

export interface RecordingHeader {
  deviceName?: string;
  deviceType: string;
  sensors: Array<{ name: string; units: string }>;
  /** Anything the caller needs to turn a recovered recording back into a sample (label, category…). */
  context: Record<string, unknown>;
}

/** How far apart finish's marks in the rows file are (see #marks). */
const MARK_BYTES = 1 << 20;

/**
 * Records sensor rows straight to disk: memory stays flat however long the capture runs. Rows
 * are appended as CBOR to `<id>.rows` next to a `<id>.json` header, so a crash leaves everything
 * needed to recover the capture. `finish` assembles the acquisition-format file by streaming:
 * the encoded header (with `values: []` opened up to the row count), then the rows, HMAC computed
 * on the way, and the signature written into the 64 zeros afterwards. Rows that come with their
 * arrival times (a source that measures its rate) also leave `<id>.times` (see recorded-rate.ts),
 * so the rate can be measured again from the rows should the recording never be finished.
 */
export class SensorRecorder {
  readonly id: string;
  readonly width: number;
  #rows = 0;
  #bytes = 0;
  /** Rows (and their bytes in the rows file) from before the take began: not part of the sample. */
  #skip = { rows: 0, bytes: 0 };
  /**
   * Rows and bytes at an append's end, one about every MARK_BYTES of the file: a take kept to its
   * first N rows (finish) reads the file from the mark before its N-th row, not from its start.
   */
  readonly #marks: Array<{ rows: number; bytes: number }> = [];
  #out: WriteStream;
  /** Opened with the first timed batch. */
  #times: WriteStream | null = null;
  #timing: TimingLog | null = null;
  #failed: Error | null = null;
  readonly #onFailure: Array<(err: Error) => void> = [];

  private constructor(readonly dir: string, readonly header: RecordingHeader, id: string) {
    this.id = id;
    this.width = header.sensors.length;
    this.#out = createWriteStream(join(dir, `${id}.rows`), { flags: 'wx' });
    this.#out.on('error', (err) => this.#fail(err));
  }

  #fail(err: unknown): void {
    if (this.#failed) return;
    this.#failed = storageError(err, this.dir);
    for (const cb of this.#onFailure) cb(this.#failed);
  }

  static async start(dir: string, header: RecordingHeader): Promise<SensorRecorder> {
    await mkdir(dir, { recursive: true });
    const id = randomUUID();
    await writeFileAtomic(join(dir, `${id}.json`), JSON.stringify({ ...header, started: new Date().toISOString(), pid: process.pid }));
    return new SensorRecorder(dir, header, id);
  }

  /** Rows appended so far, those before the take began included. */
  get rows(): number {
    return this.#rows;
  }

  /** Rows appended before the take began (see beginTakeHere). */
  get skippedRows(): number {
    return this.#skip.rows;
  }

  /**
   * The take begins with the next row: what came before stays in the rows file (a crash leaves it
   * to recovery) but not in the sample. A session of several sources records each from its own
   * start and begins all their takes at once when the last has started (see recording-service.ts).
   */
  beginTakeHere(): void {
    this.#skip = { rows: this.#rows, bytes: this.#bytes };
    // Recovery after a crash leaves those rows out too (see recording-recovery.ts). Written at once
    // (a few bytes, once per take): a crash a moment later must find it.
    if (this.#rows > 0) {
      try {
        writeFileSync(this.beginPath, JSON.stringify(this.#skip));
      } catch (err) {
        this.#fail(err);
      }
    }
  }

  /** Where the take's first row is kept (rows and bytes of the rows file before it), once it has begun after rows. */
  get beginPath(): string {
    return join(this.dir, `${this.id}.begin`);
  }

  /** The rows file, where every row appended so far is kept until the sample is written. */
  get rowsPath(): string {
    return join(this.dir, `${this.id}.rows`);
  }

  /** Writing the rows failed (disk full, folder gone): the owner stops the capture; the rows written so far stay. */
  onFailure(cb: (err: Error) => void): void {
    this.#onFailure.push(cb);
  }

  /** Where the arrival times of the rows are kept (see recorded-rate.ts); only for timed rows. */
  get timesPath(): string {
    return join(this.dir, `${this.id}.times`);
  }

  /**
   * `values` is row-major, `width` numbers per row; `timing`, when the source measures its rate,
   * when they arrived (one record per call, whatever the row count). After a failed write
   * further rows are dropped (the capture is being stopped).
   */
  append(values: ArrayLike<number>, rows: number, timing?: RowTiming): void {
    if (this.#failed) return;
    if (rows === 0) return;
    const encoded = encodeRows(values, this.width, rows);
    this.#out.write(encoded);
    this.#rows += rows;
    this.#bytes += encoded.length;
    if (this.#bytes - (this.#marks.at(-1)?.bytes ?? 0) >= MARK_BYTES) this.#marks.push({ rows: this.#rows, bytes: this.#bytes });
    if (timing) {
      if (!this.#timing) {
        this.#timing = new TimingLog();
        this.#times = createWriteStream(this.timesPath, { flags: 'wx' });
        this.#times.on('error', (err) => this.#fail(err));
      }
      const due = this.#timing.add(timing.arrivalMs, timing.lines, rows);
      if (due) this.#times!.write(due);
    }
  }

  /** Writes what is pending of the times and closes that file. */
  async #endTimes(): Promise<void> {
    const times = this.#times;
    if (!times || times.destroyed) return;
    const rest = this.#timing!.take();
    await new Promise<void>((res) => (rest ? times.end(rest, () => res()) : times.end(() => res())));
  }

  /**
   * Writes the finished acquisition file to `to` (or the path `to()` gives once the rows are
   * known to be whole) and removes the recording's own files. If
   * anything fails (the rows could not all be written, the sample file could not be), the
   * recording's files stay where they are and the error says so: the next start (or
   * `capture-desk samples recover`) turns them into a sample. Only a recording without a single
   * row is removed, since there is nothing in it to keep.
   */
  async finish(to: string | (() => string), o: { intervalMs: number; hmacKey?: string | undefined; iat?: number; rows?: number }): Promise<{ rows: number }> {
    // A stream that failed is destroyed already; ending it again would wait for nothing.
    if (!this.#out.destroyed) await new Promise<void>((res) => this.#out.end(() => res()));
    await this.#endTimes();
    if (this.#failed) throw await this.#kept(this.#failed);
    let rows = this.#rows - this.#skip.rows;
    // A take that ends a reading or two before what was written (see declaredTake): only its first `o.rows` go in the sample.
    let toByte: number | undefined;
    if (o.rows !== undefined && o.rows > 0 && o.rows < rows) {
      const end = this.#skip.rows + o.rows;
      let mark = this.#skip;
      for (const m of this.#marks) if (m.rows <= end && m.bytes >= mark.bytes) mark = m;
      const kept = await completeRowsIn(this.rowsPath, this.width, { from: mark.bytes, most: end - mark.rows });
      rows = mark.rows - this.#skip.rows + kept.rows;
      toByte = mark.bytes + kept.bytes;
    }
    if (rows === 0) {
      await this.#removeFiles();
      throw new CoreError('InvalidArguments', 'Nothing was recorded: no valid rows arrived. Check that the board is printing numbers, one reading per line.');
    }
    // A target asked for only now (a place in samples/ reserved): the rows' own failure is said
    // first, and a place that cannot be had (the index refusing a full disk) keeps the rows too.
    let target: string;
    try {
      target = typeof to === 'string' ? to : to();
    } catch (err) {
      throw await this.#kept(err instanceof Error ? err : new Error(String(err)));
    }
    try {
      await writeAcquisition(target, this.rowsPath, rows, this.header, o, this.#skip.bytes, toByte);
    } catch (err) {
      throw await this.#kept(storageError(err, dirname(target)));
    }
    await this.#removeFiles();
    return { rows };
  }

  /** The error to report when the rows stay in the recordings folder: what failed, how many rows are safe, what to do. */
  async #kept(cause: Error): Promise<CoreError> {
    let onDisk = 0;
    try {
      onDisk = (await completeRowsIn(this.rowsPath, this.width)).rows;
    } catch {
      // unreadable too: the count stays 0 and the message still names the file
    }
    const code = cause instanceof CoreError ? cause.code : 'Unavailable';
    return new CoreError(code, `${cause.message} The ${onDisk} rows recorded before that are kept in ${this.rowsPath}; ` +
      'once the problem is fixed they become an incomplete sample at the next start of Capture Desk, or now with "capture-desk samples recover".', { keptIn: this.rowsPath, rows: onDisk });
  }

  /** Removes the recording's files. Only for a person's explicit "Discard", or once the sample file holds every row. */
  async discard(): Promise<void> {
    if (!this.#out.closed && !this.#out.destroyed) await new Promise<void>((r) => this.#out.end(() => r()));
    await this.#endTimes();
    await this.#removeFiles();
  }

  async #removeFiles(): Promise<void> {
    await rm(this.rowsPath, { force: true });
    await rm(this.timesPath, { force: true });
    await rm(this.beginPath, { force: true });
    await rm(join(this.dir, `${this.id}.json`), { force: true });
  }
}

/** Streams header + rows (the rows file from byte `fromByte` on) into `target`, signs in place, fsyncs. */
export async function writeAcquisition(
  target: string,
  rowsFile: string,
  rows: number,
  h: Pick<RecordingHeader, 'deviceName' | 'deviceType' | 'sensors'>,
  o: { intervalMs: number; hmacKey?: string | undefined; iat?: number },
  fromByte = 0,
  /** Where the rows to write end (exclusive); the file's end when undefined. */
  toByte?: number,
): Promise<void> {
  const payload = {
    ...(h.deviceName === undefined ? {} : { device_name: h.deviceName }),
    device_type: h.deviceType,
    interval_ms: o.intervalMs,
    sensors: h.sensors.map((s) => ({ name: s.name, units: s.units })),
    values: [] as number[][],
  };
  const msg = { protected: { ver: 'v1', alg: o.hmacKey ? 'HS256' : 'none', iat: o.iat ?? Math.floor(Date.now() / 1000) }, signature: ZERO_SIGNATURE, payload };
  const empty = Buffer.from(cbor.encode(msg));
  // `values` is the last key of the last map, so the encoding ends with its empty-array byte.
  if (empty[empty.length - 1] !== 0x80) throw new Error('unexpected CBOR layout for the acquisition header');
  const prefix = Buffer.concat([empty.subarray(0, -1), arrayHeader(rows)]);

  const hmac = o.hmacKey ? createHmac('sha256', o.hmacKey) : null;
  const fh = await open(target, 'wx', 0o600);
  try {
    await fh.write(prefix);
    hmac?.update(prefix);
    let pos = prefix.length;
    for await (const chunk of createReadStream(rowsFile, { start: fromByte, ...(toByte === undefined ? {} : { end: toByte - 1 }) })) {
      const b = chunk as Buffer;
      await fh.write(b, 0, b.length, pos);
      hmac?.update(b);
      pos += b.length;
    }
    if (hmac) {
      const marker = Buffer.concat([Buffer.from([0x69]), Buffer.from('signature'), Buffer.from([0x78, 0x40]), Buffer.from(ZERO_SIGNATURE)]);
      const at = prefix.indexOf(marker);
      if (at < 0) throw new Error('signature placeholder not found');
      await fh.write(Buffer.from(hmac.digest('hex'), 'latin1'), 0, 64, at + marker.length - 64);
    }
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(target, { force: true });
    throw err;
  }
  await fh.close();
}
