/**
 * A small, strict reader for the zip files the platform's WebAssembly export comes in.
 *
 * Why not a library: the archives are tiny (a .js, a .wasm, maybe an example script) and only use
 * "stored" or "deflate", so reading the central directory ourselves keeps the app free of a
 * dependency while letting us refuse anything odd (encryption, zip64, path tricks, zip bombs) with
 * a message a person can act on.
 *
 * Layout read (PKWARE APPNOTE 4.3): end-of-central-directory record (EOCD) at the end, possibly
 * followed by a comment; it points to the central directory, whose entries point to each local
 * header, after which the entry's data lies. Sizes and CRCs are taken from the central directory,
 * because local headers written with a data descriptor (flag bit 3) carry zeros there.
 */
import { crc32, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Path inside the archive, '/'-separated (backslashes written by some Windows tools are turned into '/'). */
  name: string;
  /** Uncompressed size in bytes. */
  size: number;
  compressedSize: number;
  /** 0 = stored, 8 = deflate. */
  method: number;
  isDirectory: boolean;
  /** Decompresses the entry and checks its size and CRC-32; throws ZipError when they do not match. */
  read(): Buffer;
}

export class ZipError extends Error {
  override name = 'ZipError';
}

export const DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024;

const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;
const METHOD_AES = 99; // WinZip AES: encrypted even when flag bit 0 is somehow clear

/**
 * Lists the entries of the zip archive in `buf` (in central-directory order). Headers are all checked
 * here, so a damaged or unsupported archive fails at once; entry data is only decompressed (and its
 * CRC checked) when `read()` is called.
 *
 * @param maxTotalBytes refuse archives whose entries would unpack to more than this in total.
 */
export function readZip(buf: Buffer, maxTotalBytes = DEFAULT_MAX_TOTAL_BYTES): ZipEntry[] {
  const eocd = findEocd(buf);
  if (eocd < 0) {
    // A file that begins like a zip but has no EOCD was most likely cut short while downloading.
    if (buf.length >= 4 && buf.readUInt32LE(0) === SIG_LOCAL) {
      throw new ZipError('This zip archive is incomplete (its end is missing); it may have been cut off while downloading.');
    }
    throw new ZipError('This file is not a zip archive (no end-of-central-directory record).');
  }
  const disk = buf.readUInt16LE(eocd + 4);
  const cdDisk = buf.readUInt16LE(eocd + 6);
  const countOnDisk = buf.readUInt16LE(eocd + 8);
  const count = buf.readUInt16LE(eocd + 10);
  const cdSize = buf.readUInt32LE(eocd + 12);
  const cdOffset = buf.readUInt32LE(eocd + 16);
  if (
    count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff ||
    (eocd >= 20 && buf.readUInt32LE(eocd - 20) === SIG_ZIP64_LOCATOR)
  ) {
    throw new ZipError('This zip archive uses the zip64 format, which is not supported.');
  }
  if (disk !== 0 || cdDisk !== 0 || countOnDisk !== count) {
    throw new ZipError('This zip archive is split over several files (a multi-part archive), which is not supported.');
  }
  if (cdOffset + cdSize > eocd) {
    throw new ZipError('This zip archive is damaged or incomplete (its table of contents lies outside the file).');
  }

  const entries: ZipEntry[] = [];
  let total = 0;
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + CENTRAL_SIZE > cdOffset + cdSize || buf.readUInt32LE(p) !== SIG_CENTRAL) {
      throw new ZipError(`This zip archive is damaged (entry ${i + 1} of ${count} in its table of contents is unreadable).`);
    }
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const localOffset = buf.readUInt32LE(p + 42);
    const next = p + CENTRAL_SIZE + nameLen + extraLen + commentLen;
    if (next > cdOffset + cdSize) {
      throw new ZipError(`This zip archive is damaged (entry ${i + 1} of ${count} in its table of contents is unreadable).`);
    }
    // Names are taken as UTF-8 whether or not flag bit 11 says so: macOS and many tools write UTF-8
    // without the flag, and the names in model exports are plain ASCII anyway.
    const rawName = buf.toString('utf8', p + CENTRAL_SIZE, p + CENTRAL_SIZE + nameLen);
    const name = rawName.replace(/\\/g, '/');
    checkName(name, rawName);
    const what = `"${name}"`;

    if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) || method === METHOD_AES) {
      throw new ZipError(`The entry ${what} is encrypted (password-protected), which is not supported.`);
    }
    if (compressedSize === 0xffffffff || size === 0xffffffff || localOffset === 0xffffffff) {
      throw new ZipError(`The entry ${what} uses the zip64 format, which is not supported.`);
    }
    if (method !== METHOD_STORED && method !== METHOD_DEFLATE) {
      throw new ZipError(`The entry ${what} is compressed with method ${method}; only "stored" (0) and "deflate" (8) are supported.`);
    }
    if (method === METHOD_STORED && compressedSize !== size) {
      throw new ZipError(`The entry ${what} is damaged (stored without compression, yet its two sizes differ).`);
    }
    // Sum the declared sizes before unpacking anything; read() also caps each inflate at its
    // declared size, so an entry that lies about its size cannot get past this either.
    total += size;
    if (total > maxTotalBytes) {
      throw new ZipError(
        `This zip archive would unpack to more than ${formatBytes(maxTotalBytes)} (at entry ${what}); refusing it as too large.`,
      );
    }

    if (localOffset + LOCAL_SIZE > cdOffset || buf.readUInt32LE(localOffset) !== SIG_LOCAL) {
      throw new ZipError(`The entry ${what} is damaged (its local header is missing).`);
    }
    const dataStart = localOffset + LOCAL_SIZE + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
    if (dataStart + compressedSize > cdOffset) {
      throw new ZipError(`The entry ${what} is damaged or incomplete (its data runs past the end of the file).`);
    }

    entries.push({
      name,
      size,
      compressedSize,
      method,
      isDirectory: name.endsWith('/'),
      read: () => inflateEntry(buf.subarray(dataStart, dataStart + compressedSize), method, size, crc, what),
    });
    p = next;
  }
  return entries;
}

/** Offset of the EOCD record, or -1. Searched backwards because a comment (up to 64 KiB) may follow it. */
function findEocd(buf: Buffer): number {
  const lowest = Math.max(0, buf.length - EOCD_SIZE - 0xffff);
  for (let i = buf.length - EOCD_SIZE; i >= lowest; i--) {
    // The comment-length check keeps a "PK\5\6" that merely appears inside a comment from matching.
    if (buf.readUInt32LE(i) === SIG_EOCD && i + EOCD_SIZE + buf.readUInt16LE(i + 20) <= buf.length) return i;
  }
  return -1;
}

/** Refuses names that could escape the folder the archive is unpacked into ("zip slip"). */
function checkName(name: string, rawName: string): void {
  if (name.length === 0) throw new ZipError('This zip archive has an entry with an empty name.');
  if (name.includes('\0')) throw new ZipError(`The entry "${rawName.replace(/\0/g, '\\0')}" has a NUL character in its name.`);
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) {
    throw new ZipError(`The entry "${rawName}" has an absolute path; entries must lie inside the archive.`);
  }
  if (name.split('/').includes('..')) {
    throw new ZipError(`The entry "${rawName}" has ".." in its path, which would point outside the archive.`);
  }
}

function inflateEntry(data: Buffer, method: number, size: number, crc: number, what: string): Buffer {
  let out: Buffer;
  if (method === METHOD_STORED) {
    out = Buffer.from(data); // a copy, so callers may keep or change it without pinning the archive
  } else {
    try {
      // maxOutputLength stops a lying entry from unpacking to more than it declared (must be >= 1).
      out = inflateRawSync(data, { maxOutputLength: Math.max(1, size) });
    } catch (e) {
      const why = e instanceof RangeError ? 'it unpacks to more than its declared size' : 'its compressed data is corrupt';
      throw new ZipError(`The entry ${what} is damaged (${why}).`);
    }
  }
  if (out.length !== size) {
    throw new ZipError(`The entry ${what} is damaged (it unpacks to ${out.length} bytes, not the ${size} bytes recorded).`);
  }
  if (crc32(out) !== crc) {
    throw new ZipError(`The entry ${what} is damaged (its checksum does not match its contents).`);
  }
  return out;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}
