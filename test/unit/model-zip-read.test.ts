import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readZip, ZipError } from '../../src-main/core/model/zip-read.js';
import { thrownBy } from '../support/errors.js';

// The archives are written by Python's zipfile, an independent writer, so the reader is not only
// checked against itself.
const MAKE = String.raw`
import sys, zipfile, os
d = sys.argv[1]
js = b"var Module = {};\n" * 200
wasm = bytes(range(256)) * 40
with zipfile.ZipFile(os.path.join(d, "stored.zip"), "w", zipfile.ZIP_STORED) as z:
    z.writestr("edge-impulse-standalone.js", js)
    z.writestr("edge-impulse-standalone.wasm", wasm)
with zipfile.ZipFile(os.path.join(d, "deflated.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("wasm/", b"")
    z.writestr("wasm/edge-impulse-standalone.js", js)
    z.writestr("wasm/edge-impulse-standalone.wasm", wasm)
    z.writestr("wasm/empty.txt", b"")
    z.comment = b"exported by the platform PK\x05\x06 (a fake signature inside the comment)"
with zipfile.ZipFile(os.path.join(d, "slip.zip"), "w") as z:
    z.writestr("ok.txt", b"x")
    z.writestr("../evil.js", b"x")
with zipfile.ZipFile(os.path.join(d, "abs.zip"), "w") as z:
    z.writestr("/etc/evil", b"x")
with zipfile.ZipFile(os.path.join(d, "bz2.zip"), "w", zipfile.ZIP_BZIP2) as z:
    z.writestr("model.wasm", b"x" * 100)
with zipfile.ZipFile(os.path.join(d, "big.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("zeros.bin", bytes(2 * 1024 * 1024))
`;

const JS = Buffer.from('var Module = {};\n'.repeat(200));
const WASM = Buffer.from(Array.from({ length: 256 * 40 }, (_, i) => i % 256));

let dir: string;
const zip = (name: string) => readFileSync(join(dir, name));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'zip-read-'));
  execFileSync('python3', ['-c', MAKE, dir]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs fn and returns the ZipError it throws (failing when it throws nothing or something else). */
const zipError = (fn: () => unknown) => thrownBy(fn, ZipError);

/** Index of the central-directory header for `name` in an archive. */
function centralHeader(buf: Buffer, name: string): number {
  for (let i = buf.length - 46; i >= 0; i--) {
    if (buf.readUInt32LE(i) === 0x02014b50 && buf.toString('utf8', i + 46, i + 46 + buf.readUInt16LE(i + 28)) === name) return i;
  }
  throw new Error(`no central header for ${name}`);
}

describe('readZip', () => {
  it('reads stored entries', () => {
    const entries = readZip(zip('stored.zip'));
    expect(entries.map((e) => [e.name, e.method, e.size, e.compressedSize, e.isDirectory])).toEqual([
      ['edge-impulse-standalone.js', 0, JS.length, JS.length, false],
      ['edge-impulse-standalone.wasm', 0, WASM.length, WASM.length, false],
    ]);
    expect(entries[0]!.read().equals(JS)).toBe(true);
    expect(entries[1]!.read().equals(WASM)).toBe(true);
  });

  it('reads deflated entries in folders, with an archive comment holding a fake signature', () => {
    const entries = readZip(zip('deflated.zip'));
    expect(entries.map((e) => e.name)).toEqual([
      'wasm/',
      'wasm/edge-impulse-standalone.js',
      'wasm/edge-impulse-standalone.wasm',
      'wasm/empty.txt',
    ]);
    const [folder, js, wasm, empty] = entries;
    expect(folder!.isDirectory).toBe(true);
    expect(folder!.read().length).toBe(0);
    expect(js!.method).toBe(8);
    expect(js!.compressedSize).toBeLessThan(js!.size);
    expect(js!.read().equals(JS)).toBe(true);
    expect(wasm!.read().equals(WASM)).toBe(true);
    expect(empty!.read().length).toBe(0);
  });

  it('says a file that is not a zip is not a zip', () => {
    expect(zipError(() => readZip(Buffer.from('<html>Sign in to continue</html>'))).message).toBe(
      'This file is not a zip archive (no end-of-central-directory record).',
    );
    expect(zipError(() => readZip(Buffer.alloc(0))).message).toMatch(/not a zip archive/);
  });

  it('says a truncated download is incomplete', () => {
    const whole = zip('deflated.zip');
    expect(zipError(() => readZip(whole.subarray(0, Math.floor(whole.length / 2)))).message).toMatch(/incomplete/);
    // Even one byte short: the EOCD's comment no longer fits, so the record is not taken as valid.
    expect(zipError(() => readZip(whole.subarray(0, whole.length - 1))).message).toMatch(/incomplete/);
  });

  it('notices a table of contents that points past the file', () => {
    const whole = zip('stored.zip'); // no comment: the EOCD is the last 22 bytes
    const eocd = whole.subarray(whole.length - 22);
    const damaged = Buffer.concat([whole.subarray(0, 100), eocd]);
    expect(zipError(() => readZip(damaged)).message).toMatch(/damaged or incomplete/);
  });

  it('refuses an entry whose CRC does not match, naming it', () => {
    const buf = Buffer.from(zip('deflated.zip'));
    const h = centralHeader(buf, 'wasm/edge-impulse-standalone.js');
    buf.writeUInt32LE((buf.readUInt32LE(h + 16) ^ 1) >>> 0, h + 16);
    const entries = readZip(buf); // headers are fine; the data is only checked when read
    expect(entries[2]!.read().equals(WASM)).toBe(true);
    expect(zipError(() => entries[1]!.read()).message).toBe(
      'The entry "wasm/edge-impulse-standalone.js" is damaged (its checksum does not match its contents).',
    );
  });

  it('refuses corrupt deflate data and a wrong declared size', () => {
    const buf = Buffer.from(zip('deflated.zip'));
    const h = centralHeader(buf, 'wasm/edge-impulse-standalone.wasm');
    const size = buf.readUInt32LE(h + 24);
    buf.writeUInt32LE(size - 1, h + 24); // the data unpacks to one byte more than declared
    expect(zipError(() => readZip(buf)[2]!.read()).message).toMatch(/"wasm\/edge-impulse-standalone.wasm" is damaged \(it unpacks to more/);
    buf.writeUInt32LE(size + 1, h + 24);
    expect(zipError(() => readZip(buf)[2]!.read()).message).toMatch(/unpacks to 10240 bytes, not the 10241 bytes recorded/);
  });

  it('refuses names with ".." or an absolute path', () => {
    expect(zipError(() => readZip(zip('slip.zip'))).message).toBe(
      'The entry "../evil.js" has ".." in its path, which would point outside the archive.',
    );
    expect(zipError(() => readZip(zip('abs.zip'))).message).toBe(
      'The entry "/etc/evil" has an absolute path; entries must lie inside the archive.',
    );
    // Other spellings, written over the name's first bytes in place.
    const buf = Buffer.from(zip('abs.zip'));
    const h = centralHeader(buf, '/etc/evil');
    buf.write('C:', h + 46); // "C:tc/evil"
    expect(zipError(() => readZip(buf)).message).toMatch(/absolute path/);
    buf.write('..\\', h + 46); // "..\c/evil": backslashes count as separators
    expect(zipError(() => readZip(buf)).message).toMatch(/has "\.\." in its path/);
  });

  it('refuses other compression methods, naming the entry', () => {
    expect(zipError(() => readZip(zip('bz2.zip'))).message).toBe(
      'The entry "model.wasm" is compressed with method 12; only "stored" (0) and "deflate" (8) are supported.',
    );
  });

  it('refuses encrypted entries', () => {
    const buf = Buffer.from(zip('stored.zip'));
    const h = centralHeader(buf, 'edge-impulse-standalone.wasm');
    buf.writeUInt16LE(buf.readUInt16LE(h + 8) | 1, h + 8);
    expect(zipError(() => readZip(buf)).message).toBe(
      'The entry "edge-impulse-standalone.wasm" is encrypted (password-protected), which is not supported.',
    );
  });

  it('refuses zip64 archives', () => {
    const buf = Buffer.from(zip('stored.zip'));
    buf.writeUInt32LE(0xffffffff, buf.length - 22 + 16); // central directory offset "in the zip64 record"
    expect(zipError(() => readZip(buf)).message).toMatch(/zip64/);
    const buf2 = Buffer.from(zip('stored.zip'));
    buf2.writeUInt32LE(0xffffffff, centralHeader(buf2, 'edge-impulse-standalone.js') + 20);
    expect(zipError(() => readZip(buf2)).message).toBe(
      'The entry "edge-impulse-standalone.js" uses the zip64 format, which is not supported.',
    );
  });

  it('refuses archives that unpack to more than the limit (zip bombs)', () => {
    const big = zip('big.zip');
    expect(big.length).toBeLessThan(20_000);
    expect(readZip(big)[0]!.read().length).toBe(2 * 1024 * 1024);
    expect(zipError(() => readZip(big, 1024 * 1024)).message).toBe(
      'This zip archive would unpack to more than 1 MiB (at entry "zeros.bin"); refusing it as too large.',
    );
  });

  it('stops an entry that lies about its size from unpacking past it', () => {
    // Declared 10 bytes, really 2 MiB: inflate must stop at the declared size, not allocate it all.
    const buf = Buffer.from(zip('big.zip'));
    buf.writeUInt32LE(10, centralHeader(buf, 'zeros.bin') + 24);
    expect(zipError(() => readZip(buf)[0]!.read()).message).toMatch(/unpacks to more than its declared size/);
  });
});
