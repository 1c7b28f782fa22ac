import { describe, expect, it } from 'vitest';
import {
  decodeReadBack, parseSampleOutput, readFileEncoding, sampleStageOf, transferPlan,
} from '../../src-main/core/serial/at/at-sampling.js';

const v = (major: number, minor: number) => ({ major, minor, patch: 0 });

describe('parseSampleOutput', () => {
  it('reads a sample left in the buffer (firmware-sdk boards)', () => {
    const out = [
      'Sampling settings:', '\tInterval: 0.06250 ms.', '\tLength: 1000 ms.', '\tName: idle', '\tHMAC Key: k',
      '\tFile name: /fs/idle', 'Starting in 2000 ms... (or until all flash was erased)', 'Sampling...',
      'Done sampling, total bytes collected: 32000', '[1/1] Uploading file to Edge Impulse...',
      'Not uploading file, not connected to WiFi. Used buffer, from=0, to=32151.',
      '[1/1] Uploading file to Edge Impulse OK (took 0 ms.)', 'OK',
    ];
    expect(parseSampleOutput(out)).toEqual({ fileName: '/fs/idle', uploadedByDevice: false, buffer: { from: 0, to: 32151 } });
  });

  it('reads a sample left in a file (Mbed boards without WiFi)', () => {
    const out = ['\tFile name: /fs/wave.3', 'Sampling...', 'Done sampling', 'Total samples collected: 625', 'Not uploading file, not connected to WiFi', 'OK'];
    expect(parseSampleOutput(out)).toEqual({ fileName: '/fs/wave.3', uploadedByDevice: false });
  });

  it('recognises a board that uploaded by itself', () => {
    const out = ['\tFile name: /fs/wave.0', 'Sampling...', 'Done sampling', "Uploading... '/fs/wave.0' to ingestion.example/api/training/data...", 'OK'];
    expect(parseSampleOutput(out)).toEqual({ fileName: '/fs/wave.0', uploadedByDevice: true });
  });

  it('keeps colons in file names', () => {
    expect(parseSampleOutput(['File name: C:/samples/a', 'Not uploading file']).fileName).toBe('C:/samples/a');
  });

  it('fails clearly without a file name or with an empty buffer', () => {
    expect(() => parseSampleOutput(['Sampling...', 'OK'])).toThrow(expect.objectContaining({ code: 'Unavailable' }));
    expect(() => parseSampleOutput(['File name: /fs/a', 'Not uploading file, not connected to WiFi. Used buffer, from=0, to=0.']))
      .toThrow(/empty sample buffer/);
  });
});

describe('sampleStageOf', () => {
  it('maps the progress lines the daemon listens for', () => {
    expect(['Sampling...', 'Done sampling, total bytes collected: 4', 'Processing...', 'Done processing', "Uploading... '/fs/a' to x", '\tHMAC Key: k', '[1/1] Uploading file to Edge Impulse...'].map(sampleStageOf))
      .toEqual(['sampling', 'sampled', 'processing', 'processed', 'uploading', null, null]);
  });
});

describe('transferPlan (the daemon\'s fast-rate rules)', () => {
  it.each([
    [v(1, 3), 921600, true, { suffix: '', baud: null }], // no argument before 1.6
    [v(1, 5), 921600, true, { suffix: '', baud: null }],
    [v(1, 6), 921600, true, { suffix: ',y', baud: 921600 }],
    [v(1, 8), 2000000, false, { suffix: ',n', baud: null }], // turned off, or the port cannot switch
    [v(1, 8), 115200, true, { suffix: ',n', baud: null }], // nothing faster on offer
    [v(1, 8), null, true, { suffix: ',n', baud: null }],
    [v(2, 0), 921600, true, { suffix: ',y', baud: 921600 }],
  ])('AT %o at %s (use: %s)', (atVersion, transferBaudRate, use, plan) => {
    expect(transferPlan({ atVersion, transferBaudRate }, use)).toEqual(plan);
  });
});

describe('read-back decoding', () => {
  const bytes = Buffer.from([0xbf, 0x00, 0xff, 0x10, 0x7f, 0x80, 0x01]);

  it('uses hex before AT 1.2 and base64 from then on', () => {
    expect(readFileEncoding(v(1, 1))).toBe('hex');
    expect(readFileEncoding(v(1, 2))).toBe('base64');
  });

  it('decodes base64 and hex exactly, dropping the fast-transfer OK lines', () => {
    expect(decodeReadBack(['OK', bytes.toString('base64'), 'OK'], 'base64', 'x').equals(bytes)).toBe(true);
    expect(decodeReadBack([bytes.toString('hex').toUpperCase()], 'hex', 'x').equals(bytes)).toBe(true);
    expect(decodeReadBack([], 'base64', 'x').length).toBe(0);
  });

  it('keeps pieces that were padded in the middle (a short read on the board)', () => {
    const a = bytes.subarray(0, 4);
    const b = bytes.subarray(4);
    const text = a.toString('base64') + b.toString('base64');
    expect(text.slice(0, 8)).toMatch(/=$/);
    expect(decodeReadBack([text], 'base64', 'x').equals(bytes)).toBe(true);
  });

  it('refuses anything that would silently lose bytes', () => {
    for (const bad of ['QUJD!', 'QUJ', 'QU=D', 'Failed to read from buffer']) {
      expect(() => decodeReadBack([bad], 'base64', 'the buffer'), bad).toThrow(expect.objectContaining({ code: 'Unavailable' }));
    }
    for (const bad of ['abc', 'zz', 'File \'/fs/a\' does not exist']) {
      expect(() => decodeReadBack([bad], 'hex', '/fs/a'), bad).toThrow(/not hex/);
    }
  });
});
