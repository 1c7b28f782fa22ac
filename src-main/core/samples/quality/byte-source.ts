import { open } from 'node:fs/promises';

/** A file's bytes read in ranges, from memory or from disk, so big files are never held whole. */
export interface ByteSource {
  size: number;
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

export function bufferSource(bytes: Uint8Array): ByteSource {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { size: b.length, read: async (o, n) => b.subarray(o, o + n), close: async () => {} };
}

export async function fileSource(path: string): Promise<ByteSource> {
  const fh = await open(path, 'r');
  const { size } = await fh.stat();
  return {
    size,
    async read(offset, length) {
      const out = Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const { bytesRead } = await fh.read(out, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return out.subarray(0, got);
    },
    close: () => fh.close(),
  };
}

export async function readAll(src: ByteSource): Promise<Buffer> {
  return src.read(0, src.size);
}
