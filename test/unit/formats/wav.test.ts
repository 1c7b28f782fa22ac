import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, expect } from 'vitest';
import { CoreError } from '../../../src-main/core/errors.js';
import { decodeWavHeader, encodeWav } from '../../../src-main/core/samples/formats/wav.js';
import { WavFileWriter } from '../../../src-main/core/samples/formats/wav-writer.js';

const SOX = '/usr/bin/sox';
const hasSox = existsSync(SOX);

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wav-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sine(frames: number, sampleRate: number, channels = 1, hz = 1000): Int16Array {
  const out = new Int16Array(frames * channels);
  for (let i = 0; i < frames; i++) {
    const v = Math.round(Math.sin((2 * Math.PI * hz * i) / sampleRate) * 16000);
    for (let c = 0; c < channels; c++) out[i * channels + c] = c === 0 ? v : -v;
  }
  return out;
}

/** `sox --i <flag> file`, e.g. -r rate, -c channels, -b bits, -s samples (frames), -D seconds. */
function soxInfo(file: string, flag: string): string {
  return execFileSync(SOX, ['--i', flag, file], { encoding: 'utf8' }).trim();
}

/** `sox file -n stat` figures ("Maximum amplitude", "Rough   frequency", ...), printed on stderr. */
function soxStat(file: string): Record<string, number> {
  const res = spawnSync(SOX, [file, '-n', 'stat'], { encoding: 'utf8' });
  const out: Record<string, number> = {};
  for (const line of res.stderr.split('\n')) {
    const m = /^(.+?):\s+(-?[\d.]+)$/.exec(line.trim());
    if (m?.[1] && m[2]) out[m[1]] = Number(m[2]);
  }
  return out;
}

describe('encodeWav', () => {
  it('writes the canonical 44-byte PCM header and little-endian samples', () => {
    const buf = encodeWav(Int16Array.from([1, -2, 0x1234, -32768]), { sampleRate: 16000 });
    expect(buf.length).toBe(44 + 8);
    expect(buf.toString('latin1', 0, 4)).toBe('RIFF');
    expect(buf.readUInt32LE(4)).toBe(36 + 8);
    expect(buf.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    expect(buf.readUInt16LE(20)).toBe(1);
    expect(buf.readUInt32LE(28)).toBe(32000); // byte rate
    expect(buf.readUInt32LE(40)).toBe(8);
    expect([...buf.subarray(44)]).toEqual([0x01, 0x00, 0xfe, 0xff, 0x34, 0x12, 0x00, 0x80]);
  });

  it('round-trips through decodeWavHeader', () => {
    const buf = encodeWav(sine(4410, 44100, 2), { sampleRate: 44100, channels: 2 });
    expect(decodeWavHeader(buf)).toEqual({
      sampleRate: 44100, channels: 2, bitsPerSample: 16, dataOffset: 44, dataBytes: 4410 * 4, frames: 4410, durationMs: 100,
    });
  });

  it('refuses partial frames and nonsense formats with a reason', () => {
    expect(() => encodeWav(new Int16Array(3), { sampleRate: 8000, channels: 2 })).toThrow(/whole frames of 2/);
    expect(() => encodeWav(new Int16Array(2), { sampleRate: 0 })).toThrow(CoreError);
    expect(() => encodeWav(new Int16Array(2), { sampleRate: 8000.5 })).toThrow(/sample rate/);
    expect(() => encodeWav(new Int16Array(2), { sampleRate: 8000, channels: 0 })).toThrow(/channel count/);
  });
});

describe('decodeWavHeader', () => {
  function chunk(id: string, body: Buffer): Buffer {
    const head = Buffer.alloc(8);
    head.write(id, 0, 'latin1');
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  }
  const canonical = encodeWav(sine(100, 8000), { sampleRate: 8000 });
  const fmt = canonical.subarray(12, 36);
  const data = canonical.subarray(36);

  function riff(...chunks: Buffer[]): Buffer {
    const body = Buffer.concat([Buffer.from('WAVE'), ...chunks]);
    const head = Buffer.alloc(8);
    head.write('RIFF', 0, 'latin1');
    head.writeUInt32LE(body.length, 4);
    return Buffer.concat([head, body]);
  }

  it('skips LIST and odd-sized chunks, honouring the pad byte', () => {
    const list = chunk('LIST', Buffer.from('INFOISFT\x05\x00\x00\x00sox!\x00', 'latin1')); // 17 bytes + pad
    const odd = chunk('junk', Buffer.from('abc'));
    const buf = riff(fmt, list, odd, data);
    const info = decodeWavHeader(buf);
    expect(info.dataOffset).toBe(12 + 24 + (8 + 18) + (8 + 4) + 8);
    expect(info.frames).toBe(100);
    expect(buf.readInt16LE(info.dataOffset + 2)).toBe(canonical.readInt16LE(46));
  });

  it('clamps to the bytes present and reads an unfinished streaming header to the end', () => {
    const truncated = canonical.subarray(0, 44 + 51); // 25.5 frames present
    expect(decodeWavHeader(truncated).frames).toBe(25);
    const streaming = Buffer.from(canonical);
    streaming.writeUInt32LE(0xffffffff, 40);
    expect(decodeWavHeader(streaming).frames).toBe(100);
    streaming.writeUInt32LE(0, 40);
    expect(decodeWavHeader(streaming).frames).toBe(100);
  });

  it('reads only the beginning of a large file when told its size', () => {
    const info = decodeWavHeader(canonical.subarray(0, 64), canonical.length);
    expect(info.frames).toBe(100);
    expect(info.durationMs).toBe(12.5);
  });

  it('names what is wrong', () => {
    expect(() => decodeWavHeader(Buffer.from('not a wav file at all'))).toThrow(/missing RIFF\/WAVE header/);
    expect(() => decodeWavHeader(riff(data))).toThrow(/data chunk comes before the fmt chunk/);
    expect(() => decodeWavHeader(riff(fmt))).toThrow(/no data chunk/);
    const float = Buffer.from(fmt);
    float.writeUInt16LE(3, 8);
    expect(() => decodeWavHeader(riff(float, data))).toThrow(/only integer PCM/);
  });
});

describe.skipIf(!hasSox)('against sox', () => {
  it('sox reads an encoded 1 kHz sine with the right rate, channels, bits, samples and duration', async () => {
    const file = join(dir, 'sine.wav');
    await writeFile(file, encodeWav(sine(16000, 16000), { sampleRate: 16000 }));
    expect(soxInfo(file, '-r')).toBe('16000');
    expect(soxInfo(file, '-c')).toBe('1');
    expect(soxInfo(file, '-b')).toBe('16');
    expect(soxInfo(file, '-s')).toBe('16000');
    expect(Number(soxInfo(file, '-D'))).toBeCloseTo(1, 6);
    // The samples themselves, read as sox reads them: wrong byte order would wreck both figures.
    const stat = soxStat(file);
    expect(stat['Maximum amplitude']).toBeCloseTo(16000 / 32768, 3);
    expect(stat['Rough   frequency']).toBeGreaterThan(950);
    expect(stat['Rough   frequency']).toBeLessThan(1050);
  });

  it('the streaming writer produces what sox reads, across many appends', async () => {
    const file = join(dir, 'stream.wav');
    const w = await WavFileWriter.create(file, { sampleRate: 48000, channels: 2 });
    const all = sine(48000 * 2, 48000, 2); // 2 s stereo
    const chunk = 48000 / 10 * 2; // 100 ms of stereo samples
    const pending: Promise<void>[] = [];
    for (let i = 0; i < all.length; i += chunk) pending.push(w.append(all.subarray(i, i + chunk)));
    await Promise.all(pending); // appends not awaited one by one still land in order
    const info = await w.finish();
    expect(info).toMatchObject({ frames: 96000, durationMs: 2000, dataBytes: all.byteLength });
    expect(soxInfo(file, '-r')).toBe('48000');
    expect(soxInfo(file, '-c')).toBe('2');
    expect(soxInfo(file, '-b')).toBe('16');
    expect(soxInfo(file, '-s')).toBe('96000');
    expect(Number(soxInfo(file, '-D'))).toBeCloseTo(2, 6);
    const bytes = await readFile(file);
    expect(bytes.equals(encodeWav(all, { sampleRate: 48000, channels: 2 }))).toBe(true);
  });

  it('decodes a file sox wrote itself', () => {
    const file = join(dir, 'by-sox.wav');
    execFileSync(SOX, ['-n', '-r', '22050', '-c', '2', '-b', '16', file, 'synth', '0.5', 'sine', '1000']);
    return readFile(file).then((buf) => {
      expect(decodeWavHeader(buf)).toMatchObject({ sampleRate: 22050, channels: 2, bitsPerSample: 16, frames: 11025 });
    });
  });
});

describe('WavFileWriter', () => {
  it('keeps the file a valid WAV after every append, before finish()', async () => {
    const file = join(dir, 'partial.wav');
    const w = await WavFileWriter.create(file, { sampleRate: 8000 });
    expect(decodeWavHeader(await readFile(file)).frames).toBe(0);
    await w.append(sine(800, 8000));
    await w.append(sine(400, 8000));
    const mid = await readFile(file);
    expect(mid.readUInt32LE(40)).toBe(2400); // header already says what is on disk
    expect(decodeWavHeader(mid).frames).toBe(1200);
    if (hasSox) expect(soxInfo(file, '-s')).toBe('1200');
    await w.finish();
    expect((await stat(file)).size).toBe(44 + 2400);
  });

  it('copies appended samples, so the caller can reuse its buffer at once', async () => {
    const file = join(dir, 'reuse.wav');
    const w = await WavFileWriter.create(file, { sampleRate: 8000 });
    const buf = Int16Array.from([1, 2, 3, 4]);
    const p = w.append(buf);
    buf.fill(9);
    await p;
    await w.finish();
    const bytes = await readFile(file);
    expect([...new Int16Array(bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + 52))]).toEqual([1, 2, 3, 4]);
  });

  it('abort() leaves a valid partial file and never throws; nothing can be appended after', async () => {
    const file = join(dir, 'aborted.wav');
    const w = await WavFileWriter.create(file, { sampleRate: 8000 });
    await w.append(sine(80, 8000));
    await w.abort();
    await w.abort();
    expect(decodeWavHeader(await readFile(file)).frames).toBe(80);
    await expect(w.append(sine(1, 8000))).rejects.toThrow(/already finished/);
    await expect(w.finish()).rejects.toThrow(/already finished/);
  });

  it('refuses to overwrite an existing file and partial frames', async () => {
    const file = join(dir, 'exists.wav');
    await writeFile(file, 'precious');
    await expect(WavFileWriter.create(file, { sampleRate: 8000 })).rejects.toThrow(/already exists/);
    expect(await readFile(file, 'utf8')).toBe('precious');
    const w = await WavFileWriter.create(join(dir, 'frames.wav'), { sampleRate: 8000, channels: 2 });
    await expect(w.append(new Int16Array(3))).rejects.toThrow(/whole frames of 2/);
    await w.finish();
  });
});
