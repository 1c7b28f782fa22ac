import { CoreError } from '../../errors.js';

/**
 * The ingestion service's rules for file names: which files it accepts (spec "File types
 * accepted") and which label it derives when no x-label header is sent.
 */

/**
 * The spec writes the pattern as ^[a-zA-Z0-9\s-_]+. Read literally, `\s-_` is a range with a
 * class as its start (an error under the `u` flag, and odd without it); the intent is letters,
 * digits, whitespace, '-' and '_', so that is what this spells out.
 */
const LABEL_PATTERN = /^[a-zA-Z0-9\s\-_]+/;

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

/**
 * The label the service derives from a file name: `idle.01.cbor` gives `idle`,
 * `wave-left_3.wav` gives `wave-left_3`. Null when the name starts with any other character
 * (the service then stores the sample without a label). Directories are ignored, since the
 * service only ever sees the base name.
 */
export function deriveLabel(fileName: string): string | null {
  const m = LABEL_PATTERN.exec(baseName(fileName));
  return m ? m[0] : null;
}

export type FileKind = 'sensor' | 'audio' | 'image' | 'video' | 'labels';

interface ExtensionInfo {
  kind: FileKind;
  contentType: string;
}

/**
 * The spec's table, plus .jpeg (the same format as .jpg). The spec does not list .jpeg, so a
 * strict service may refuse that name: upload such files as .jpg.
 */
const EXTENSIONS: Record<string, ExtensionInfo> = {
  '.json': { kind: 'sensor', contentType: 'application/json' },
  '.cbor': { kind: 'sensor', contentType: 'application/cbor' },
  '.csv': { kind: 'sensor', contentType: 'text/csv' },
  '.parquet': { kind: 'sensor', contentType: 'application/vnd.apache.parquet' },
  '.wav': { kind: 'audio', contentType: 'audio/wav' },
  '.jpg': { kind: 'image', contentType: 'image/jpeg' },
  '.jpeg': { kind: 'image', contentType: 'image/jpeg' },
  '.png': { kind: 'image', contentType: 'image/png' },
  '.mp4': { kind: 'video', contentType: 'video/mp4' },
  '.avi': { kind: 'video', contentType: 'video/x-msvideo' },
  '.labels': { kind: 'labels', contentType: 'application/json' },
};

export const ACCEPTED_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

/** Lower-case extension with its dot; '' for none. A leading dot alone (".labels") counts. */
export function extensionOf(fileName: string): string {
  const name = baseName(fileName);
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
}

export function fileKind(fileName: string): FileKind | null {
  return EXTENSIONS[extensionOf(fileName)]?.kind ?? null;
}

/** The Content-Type for a file part; throws for files the service would not accept. */
export function contentTypeFor(fileName: string): string {
  const info = EXTENSIONS[extensionOf(fileName)];
  if (!info) {
    const ext = extensionOf(fileName) || 'no extension';
    throw new CoreError(
      'InvalidArguments',
      `${baseName(fileName)}: the platform does not accept files with ${ext}; use one of ${ACCEPTED_EXTENSIONS.join(' ')}`,
    );
  }
  return info.contentType;
}
