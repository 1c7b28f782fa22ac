import { CoreError } from '../errors.js';

/** The three parts every data-acquisition file has (the platform's format), in the order it writes them. */
const PARTS = ['protected', 'signature', 'payload'] as const;

/** What `samples import` takes, said where a file is refused for not being one of them. */
export const IMPORT_TAKES = '"samples import" takes the platform\'s data-acquisition files (.json or .cbor, an object with "protected", "signature" and "payload"), .wav recordings, .csv files of readings, and info.labels exports';

/**
 * A sensor file refused by the acquisition check, said in words when what is wrong is the file as
 * a whole. The check names the schema's path and the validator's text ("protected: Invalid input:
 * expected object, received undefined"), which tells a person nothing about a JSON file that is
 * simply some other JSON. Null: the check's own sentence stands (a field deeper in, a torn file).
 */
export function notAcquisitionFile(name: string, err: unknown, bytes: Buffer): string | null {
  const doc = jsonOf(bytes);
  // JSON that is not an object ("[1]") is taken for CBOR by the format check, and refused as torn CBOR.
  if (doc !== undefined && (doc === null || typeof doc !== 'object' || Array.isArray(doc))) {
    const what = doc === null ? 'null' : Array.isArray(doc) ? 'a list' : `a ${typeof doc}`;
    return `"${name}" is not a data-acquisition file: it holds ${what}, not an object with "protected", "signature" and "payload". ${IMPORT_TAKES}.`;
  }
  const path = err instanceof CoreError ? (err.details as { path?: unknown } | undefined)?.path : undefined;
  if (typeof path !== 'string' || !(PARTS as readonly string[]).includes(path)) return null;
  // CBOR (not parsed again here): the one part the check named.
  const missing = doc === undefined ? [path] : PARTS.filter((k) => !(k in (doc as object)));
  if (!missing.length) {
    // The part is there but of the wrong kind: said without the validator's wording.
    const kind = /expected (\w+), received (\w+)/.exec((err as Error).message);
    if (!kind) return null;
    return `"${name}" is not a readable data-acquisition file: its "${path}" is ${article(kind[2]!)} where the format has ${article(kind[1]!)}${path === 'protected' ? ' ({"ver": "v1", "alg": "HS256" or "none"})' : ''}.`;
  }
  const parts = missing.map((k) => (k === 'protected' ? '"protected" header' : `"${k}"`));
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
  return `"${name}" is not a data-acquisition file: it has no ${list}. ${IMPORT_TAKES}.`;
}

function jsonOf(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
}

function article(kind: string): string {
  return kind === 'undefined' || kind === 'null' ? 'null' : `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;
}
