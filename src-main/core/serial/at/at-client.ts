import { CoreError } from '../../errors.js';
import { parseAtConfig, type AtDeviceConfig } from './at-config.js';
import { AtCommandError, AtGarbledRead, maskDeviceText } from './at-errors.js';
import {
  decodeReadBack, parseSampleOutput, readFileEncoding, sampleStageOf, transferPlan,
  type AtSampleResult, type AtSampleStage,
} from './at-sampling.js';
import { AtTransport, type AtTransportOptions, type BytePort } from './at-transport.js';

export interface AtClientOptions extends AtTransportOptions {
  /** Read samples back at the fast rate the board advertises (AT 1.6+). Default true. */
  useTransferBaudRate?: boolean;
  /** Bytes per AT+READBUFFER command: bounds each command's time and gives progress. */
  readChunkBytes?: number;
  connectTimeoutMs?: number;
}

export interface AtSampleSettings {
  label: string;
  intervalMs: number;
  lengthMs: number;
  /** Without one the board's stored key is cleared and samples go unsigned. */
  hmacKey?: string | null;
}

export interface AtUploadSettings {
  apiKey: string;
  /** Ingestion path, e.g. "/api/training/data". */
  path: string;
}

export interface AtSampleOptions {
  onProgress?: (stage: AtSampleStage) => void;
  timeoutMs?: number;
}

export interface AtReadBackOptions {
  onProgress?: (receivedBytes: number, totalBytes: number | null) => void;
  timeoutMs?: number;
}

/** Drives a board running the platform's official firmware: settings, sampling, read-back. */
export class AtClient {
  readonly transport: AtTransport;
  readonly #useFast: boolean;
  readonly #chunk: number;
  readonly #connectTimeout: number;
  #config: AtDeviceConfig | null = null;

  constructor(port: BytePort, opts: AtClientOptions = {}) {
    this.transport = new AtTransport(port, opts);
    this.#useFast = opts.useTransferBaudRate ?? true;
    this.#chunk = Math.max(3, opts.readChunkBytes ?? 32 * 1024);
    this.#connectTimeout = opts.connectTimeoutMs ?? 5_000;
  }

  /** The last configuration read from the board (updated by the setters). */
  get config(): AtDeviceConfig | null {
    return this.#config;
  }

  /** Stops a running inference (`b`), waits for the prompt and reads the configuration. */
  async connect(): Promise<AtDeviceConfig> {
    await this.transport.sync({ timeoutMs: this.#connectTimeout });
    return this.readConfig();
  }

  async readConfig(): Promise<AtDeviceConfig> {
    const lines = await this.transport.command('AT+CONFIG?', { timeoutMs: this.#connectTimeout });
    this.#config = parseAtConfig(lines);
    return this.#config;
  }

  async setSampleSettings(s: AtSampleSettings): Promise<void> {
    const label = argument('label', s.label, true);
    const hmacKey = argument('HMAC key', s.hmacKey ?? '', false);
    if (!Number.isFinite(s.intervalMs) || s.intervalMs <= 0) throw invalid(`The sample interval must be a positive number of milliseconds (got ${s.intervalMs}).`);
    if (!Number.isInteger(s.lengthMs) || s.lengthMs <= 0) throw invalid(`The sample length must be a positive whole number of milliseconds (got ${s.lengthMs}).`);
    // Always four arguments, as the daemon sends them: an empty key replaces a stored one.
    const cmd = `AT+SAMPLESETTINGS=${label},${decimal(s.intervalMs)},${s.lengthMs},${hmacKey}`;
    await this.#expectOk(cmd, 'the sample settings', [hmacKey]);
    if (this.#config) this.#config.sampling = { label, intervalMs: s.intervalMs, lengthMs: s.lengthMs, hmacKeySet: hmacKey !== '' };
  }

  async setUploadSettings(u: AtUploadSettings): Promise<void> {
    const apiKey = argument('API key', u.apiKey, true);
    const path = argument('upload path', u.path, true);
    await this.#expectOk(`AT+UPLOADSETTINGS=${apiKey},${path}`, 'the upload settings', [apiKey]);
    if (this.#config) this.#config.upload = { ...this.#config.upload, apiKeySet: true, path };
  }

  /** Samples with the current settings; resolves when the board is done and says where the sample is. */
  async sample(sensor: string, opts: AtSampleOptions = {}): Promise<AtSampleResult> {
    const config = this.#requireConfig();
    const name = argument('sensor', sensor, true);
    if (config.sensors.length > 0 && !config.sensors.some((s) => s.name === name)) {
      throw invalid(`The board has no sensor "${name}". It has: ${config.sensors.map((s) => s.name).join(', ')}.`);
    }
    const lengthMs = config.sampling.lengthMs ?? 10_000;
    let last: AtSampleStage | null = null;
    const lines = await this.transport.command(`AT+SAMPLESTART=${name}`, {
      timeoutMs: opts.timeoutMs ?? Math.max(30_000, 3 * (lengthMs + 5_000)),
      // Only the stage goes out: the lines around it include the HMAC key.
      onLine: (line) => {
        const stage = sampleStageOf(line);
        if (stage && stage !== last) opts.onProgress?.((last = stage));
      },
    });
    return parseSampleOutput(lines);
  }

  /**
   * Reads a sample the board kept, byte for byte: it is already signed on the board, so the
   * bytes are returned exactly as stored and must be uploaded as they are.
   */
  async readBack(result: AtSampleResult, opts: AtReadBackOptions = {}): Promise<Buffer> {
    if (result.uploadedByDevice) throw invalid('The board uploaded this sample itself; there is nothing to read back.');
    const config = this.#requireConfig();
    const plan = transferPlan(config, this.#useFast && this.transport.canSwitchBaudRate);
    const run = (cmd: string, timeoutMs: number) =>
      plan.baud === null
        ? this.transport.command(cmd + plan.suffix, { timeoutMs })
        : this.transport.commandAtBaud(cmd + plan.suffix, plan.baud, { timeoutMs });

    if (!result.buffer) {
      const file = argument('file name', result.fileName, true);
      const bytes = await readAgainIfGarbled(async () => {
        const lines = await run(`AT+READFILE=${file}`, opts.timeoutMs ?? 120_000);
        if (lines.some((l) => l.includes('does not exist'))) {
          throw new CoreError('NotFound', `The board has no file ${file} (any more). Sample again.`, { fileName: file });
        }
        return decodeReadBack(lines, readFileEncoding(config.atVersion), file);
      });
      opts.onProgress?.(bytes.length, bytes.length);
      return bytes;
    }

    const { from, to } = result.buffer;
    const parts: Buffer[] = [];
    opts.onProgress?.(0, to - from);
    for (let start = from; start < to; start += this.#chunk) {
      const length = Math.min(this.#chunk, to - start);
      // The firmware takes START,LENGTH (ei_at_command_set.h); the daemon's "from,to" is the
      // same thing only because it always reads everything from 0.
      const read = async () => {
        const lines = await run(`AT+READBUFFER=${start},${length}`, opts.timeoutMs ?? transferTimeout(length, plan.baud));
        if (lines.some((l) => l.includes('Failed to read from buffer'))) {
          throw new CoreError('Unavailable', `The board could not read bytes ${start}-${start + length} of its sample buffer. Sample again.`);
        }
        const bytes = decodeReadBack(lines, 'base64', 'the sample buffer');
        if (bytes.length !== length) {
          throw new AtGarbledRead(`The board sent ${bytes.length} bytes for the ${length} bytes at ${start} of its sample buffer. Sample again.`);
        }
        return bytes;
      };
      parts.push(await readAgainIfGarbled(read));
      opts.onProgress?.(start + length - from, to - from);
    }
    return Buffer.concat(parts);
  }

  /** Deletes the sample file from the board once it is safely stored elsewhere. */
  async unlink(fileName: string): Promise<void> {
    const file = argument('file name', fileName, true);
    const lines = await this.transport.command(`AT+UNLINKFILE=${file}`);
    if (lines.length > 0) throw new AtCommandError('device-error', 'AT+UNLINKFILE', maskDeviceText(lines.join(' ')));
  }

  close(): void {
    this.transport.close();
  }

  async #expectOk(cmd: string, what: string, secrets: string[]): Promise<void> {
    const lines = await this.transport.command(cmd, { secrets });
    if (!lines.some((l) => l.trim() === 'OK')) {
      throw new CoreError('Unavailable', `The board did not accept ${what}: "${maskDeviceText(lines.join(' '), secrets)}".`);
    }
  }

  #requireConfig(): AtDeviceConfig {
    if (!this.#config) throw new CoreError('Unavailable', 'Not connected to the board yet: connect first.');
    return this.#config;
  }
}

/** Reads of the sample buffer tried before a damaged one is reported. */
const READ_TRIES = 3;

/**
 * Reading the buffer changes nothing on the board, so a chunk that came through damaged is asked
 * for again. At the fast rate the host must follow the board's switch within its pause (100 ms);
 * a host busy for longer loses what came meanwhile: on a PTY, setting the rate flushes the input
 * (serialport's tcflush), and on a UART those bytes were read at the wrong rate. Seen under load.
 */
async function readAgainIfGarbled(read: () => Promise<Buffer>): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof AtGarbledRead)) throw err;
      if (attempt >= READ_TRIES) throw new CoreError('Unavailable', `${err.message} (read ${attempt} times)`);
    }
  }
}

/**
 * The firmware splits arguments at commas and drops bytes outside printable ASCII (it echoes
 * only 0x20-0x7e), so anything else would silently reach the board changed.
 */
function argument(what: string, value: string, required: boolean): string {
  if (typeof value !== 'string' || (required && value === '')) throw invalid(`The ${what} is empty.`);
  if (!/^[\x20-\x7e]*$/.test(value)) throw invalid(`The ${what} may only use printable ASCII characters (the board drops others).`);
  if (value.includes(',')) throw invalid(`The ${what} may not contain a comma (the board splits arguments at commas).`);
  return value;
}

function invalid(message: string): CoreError {
  return new CoreError('InvalidArguments', message);
}

/** 16 → "16", 0.0625 → "0.0625"; never exponent notation, which the board's atof misreads. */
function decimal(n: number): string {
  const s = String(n);
  return s.includes('e') ? n.toFixed(10).replace(/\.?0+$/, '') : s;
}

/** Base64 is 4/3 the bytes at 10 bits a character; allow three times that plus a margin. */
function transferTimeout(bytes: number, baud: number | null): number {
  const chars = Math.ceil(bytes / 3) * 4 + 64;
  return 5_000 + Math.ceil((3 * chars * 10 * 1000) / (baud ?? 115_200));
}
