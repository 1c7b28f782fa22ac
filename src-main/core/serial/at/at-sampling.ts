import { CoreError } from '../../errors.js';
import { versionAtLeast, type AtDeviceConfig, type AtVersion } from './at-config.js';
import { AtGarbledRead } from './at-errors.js';

/** The stages the firmware announces while `AT+SAMPLESTART` runs, in the order they come. */
export type AtSampleStage = 'sampling' | 'sampled' | 'processing' | 'processed' | 'uploading';

export interface AtSampleResult {
  /** Where the board keeps the sample, e.g. "/fs/idle" or "/fs/idle.3". */
  fileName: string;
  /** True when the board uploaded the sample itself (it has WiFi): nothing to read back. */
  uploadedByDevice: boolean;
  /** Set when the sample sits in the board's buffer rather than in a file. */
  buffer?: { from: number; to: number };
}

// The same substrings the official daemon listens for. Lines are matched, never passed on: the
// firmware prints the HMAC key among them.
const STAGES: Array<[string, AtSampleStage]> = [
  ['Sampling...', 'sampling'],
  ['Done sampling', 'sampled'],
  ['Processing...', 'processing'],
  ['Done processing', 'processed'],
  ['Uploading...', 'uploading'],
];

export function sampleStageOf(line: string): AtSampleStage | null {
  for (const [text, stage] of STAGES) if (line.includes(text)) return stage;
  return null;
}

/** Reads the answer to `AT+SAMPLESTART` (ERR: lines were already turned into errors). */
export function parseSampleOutput(lines: readonly string[]): AtSampleResult {
  const nameLine = lines.find((l) => l.includes('File name:'));
  const fileName = nameLine?.slice(nameLine.indexOf('File name:') + 'File name:'.length).trim();
  if (!fileName) {
    throw new CoreError('Unavailable', 'The board finished sampling but did not say which file holds the sample. Is it running the official firmware?');
  }
  const notUploaded = lines.some((l) => l.includes('Not uploading file'));
  if (!notUploaded) return { fileName, uploadedByDevice: true };
  for (const l of lines) {
    const m = /Used buffer.*?from=(\d+).*?to=(\d+)/.exec(l);
    if (m) {
      const from = Number(m[1]);
      const to = Number(m[2]);
      if (to <= from) throw new CoreError('Unavailable', `The board reported an empty sample buffer (from=${from}, to=${to}).`);
      return { fileName, uploadedByDevice: false, buffer: { from, to } };
    }
  }
  return { fileName, uploadedByDevice: false };
}

/**
 * The daemon's rules for the fast transfer rate: from AT 1.6 READFILE/READBUFFER take a last
 * argument `y` (switch) or `n`; older firmware takes none and never switches for them.
 */
export function transferPlan(
  config: Pick<AtDeviceConfig, 'atVersion' | 'transferBaudRate'>,
  use: boolean,
): { suffix: '' | ',y' | ',n'; baud: number | null } {
  const explicit = versionAtLeast(config.atVersion, 1, 6);
  const fast = config.transferBaudRate !== null && config.transferBaudRate !== 115_200;
  if (explicit && fast && use) return { suffix: ',y', baud: config.transferBaudRate };
  return { suffix: explicit ? ',n' : '', baud: null };
}

/** READFILE sends hex before AT 1.2 and base64 from then on. */
export function readFileEncoding(v: AtVersion): 'hex' | 'base64' {
  return versionAtLeast(v, 1, 2) ? 'base64' : 'hex';
}

/**
 * Joins the data lines of a read-back and decodes them. Strict on purpose: Node's decoders skip
 * characters they do not know, which would hand back a sample missing bytes instead of an error.
 */
export function decodeReadBack(lines: readonly string[], encoding: 'hex' | 'base64', what: string): Buffer {
  // "OK" lines are the fast-transfer markers; everything else must be data.
  const text = lines.map((l) => l.trim()).filter((l) => l !== 'OK' && l !== 'OKOK').join('');
  const bytes = encoding === 'hex' ? (/^(?:[0-9a-fA-F]{2})*$/.test(text) ? Buffer.from(text, 'hex') : null) : base64Strict(text);
  if (!bytes) {
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new AtGarbledRead(`The board sent something that is not ${encoding} while reading ${what}: "${shown}". Try again; if it repeats, reset the board.`);
  }
  return bytes;
}

const BASE64_PIECE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The firmware encodes in pieces of up to 513 bytes; a piece that came out shorter (a short file
 * system read) ends in padding in the middle of the text. Decode piece by piece so that is kept.
 */
function base64Strict(text: string): Buffer | null {
  const pieces = text.split(/(?<==)(?!=)/);
  const out: Buffer[] = [];
  for (const p of pieces) {
    if (!BASE64_PIECE.test(p)) return null;
    out.push(Buffer.from(p, 'base64'));
  }
  return Buffer.concat(out);
}
