import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TIMING_RECORD_BYTES } from '../../../src-main/core/capture/recorded-rate.js';
import { SensorRecorder } from '../../../src-main/core/capture/sensor-recorder.js';
import { encodeRows } from '../../../src-main/core/capture/cbor-rows.js';
import { decodeAcquisition, encodeAcquisition, verifyAcquisitionSignature } from '../../../src-main/core/samples/formats/acquisition.js';

const header = { deviceName: 'ac:87:a3:0a:2d:1b', deviceType: 'NUMERIC_LINES', sensors: [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }, { name: 'accZ', units: 'm/s2' }], context: { label: 'idle' } };

function rows(n: number, from = 0): number[] {
  const out: number[] = [];
  for (let i = from; i < from + n; i++) out.push(i, -0.123 * i, 9.81 + i / 7);
  return out;
}

describe('SensorRecorder', () => {
  for (const hmacKey of [undefined, 'a-project-hmac-key']) {
    it(`streams a capture that is byte-identical to encoding it at once (${hmacKey ? 'signed' : 'unsigned'})`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'cd-rec-'));
      const rec = await SensorRecorder.start(join(dir, 'recordings'), header);
      // Many appends of odd sizes, as batches arrive from a port.
      let written = 0;
      for (const n of [1, 7, 300, 2, 1000, 13]) {
        rec.append(rows(n, written), n);
        written += n;
      }
      const target = join(dir, 'out.cbor');
      expect(await rec.finish(target, { intervalMs: 10, hmacKey, iat: 1_700_000_000 })).toEqual({ rows: written });
      const bytes = await readFile(target);
      const all = rows(written);
      const values = Array.from({ length: written }, (_, r) => all.slice(r * 3, r * 3 + 3));
      const expected = encodeAcquisition(
        { protected: { iat: 1_700_000_000 }, payload: { device_name: header.deviceName, device_type: header.deviceType, interval_ms: 10, sensors: header.sensors, values } },
        { format: 'cbor', ...(hmacKey ? { hmacKey } : {}) },
      );
      expect(bytes.equals(expected)).toBe(true);
      const msg = decodeAcquisition(bytes, 'cbor');
      expect(msg.payload.values).toHaveLength(written);
      if (hmacKey) {
        expect(verifyAcquisitionSignature(bytes, hmacKey)).toBe(true);
        expect(verifyAcquisitionSignature(bytes, 'another-key')).toBe(false);
      } else expect(msg.protected.alg).toBe('none');
      // The recording's own files are gone once the sample exists.
      expect(await readdir(join(dir, 'recordings'))).toEqual([]);
    });
  }

  it('a take that begins after the first rows: the sample holds only the rows from there, signed over them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-rec-'));
    const rec = await SensorRecorder.start(join(dir, 'recordings'), header);
    rec.append(rows(5, 0), 5);
    rec.append(rows(300, 5), 300);
    rec.beginTakeHere();
    expect(rec.skippedRows).toBe(305);
    // Said on disk at once, for recovery after a crash (recording-recovery.ts).
    expect(JSON.parse(await readFile(rec.beginPath, 'utf8'))).toEqual({ rows: 305, bytes: encodeRows(rows(305, 0), 3, 305).length });
    rec.append(rows(7, 305), 7);
    rec.append(rows(1000, 312), 1000);
    const target = join(dir, 'out.cbor');
    expect(await rec.finish(target, { intervalMs: 10, hmacKey: 'k', iat: 1_700_000_000 })).toEqual({ rows: 1007 });
    const bytes = await readFile(target);
    const all = rows(1007, 305);
    const values = Array.from({ length: 1007 }, (_, r) => all.slice(r * 3, r * 3 + 3));
    const expected = encodeAcquisition(
      { protected: { iat: 1_700_000_000 }, payload: { device_name: header.deviceName, device_type: header.deviceType, interval_ms: 10, sensors: header.sensors, values } },
      { format: 'cbor', hmacKey: 'k' },
    );
    expect(bytes.equals(expected)).toBe(true);
    expect(await readdir(join(dir, 'recordings'))).toEqual([]);
  });

  it('a take kept to its first N rows (the rate after it asks for fewer): those rows, after a begin, signed over them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-rec-'));
    const rec = await SensorRecorder.start(join(dir, 'recordings'), header);
    rec.append(rows(5, 0), 5);
    rec.beginTakeHere();
    rec.append(rows(150, 5), 150);
    rec.append(rows(151, 155), 151);
    const target = join(dir, 'out.cbor');
    expect(await rec.finish(target, { intervalMs: 10, hmacKey: 'k', iat: 1_700_000_000, rows: 300 })).toEqual({ rows: 300 });
    const all = rows(300, 5);
    const values = Array.from({ length: 300 }, (_, r) => all.slice(r * 3, r * 3 + 3));
    const expected = encodeAcquisition(
      { protected: { iat: 1_700_000_000 }, payload: { device_name: header.deviceName, device_type: header.deviceType, interval_ms: 10, sensors: header.sensors, values } },
      { format: 'cbor', hmacKey: 'k' },
    );
    expect((await readFile(target)).equals(expected)).toBe(true);
  });

  it('a long take kept to its first N rows: read from the mark before its N-th row (megabytes of rows), the same bytes as encoding those rows at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-rec-'));
    const rec = await SensorRecorder.start(join(dir, 'recordings'), header);
    rec.append(rows(7000, 0), 7000);
    rec.beginTakeHere();
    // 200,000 rows of about 22 bytes in batches of 997: 4 MB, marks every megabyte.
    let written = 7000;
    while (written < 207_000) {
      const n = Math.min(997, 207_000 - written);
      rec.append(rows(n, written), n);
      written += n;
    }
    const keep = 150_001; // inside a batch, between two marks (one after it)
    const target = join(dir, 'out.cbor');
    expect(await rec.finish(target, { intervalMs: 10, iat: 1_700_000_000, rows: keep })).toEqual({ rows: keep });
    const msg = decodeAcquisition(await readFile(target), 'cbor');
    expect(msg.payload.values).toHaveLength(keep);
    expect(msg.payload.values[0]).toEqual(rows(1, 7000));
    expect(msg.payload.values[keep - 1]).toEqual(rows(1, 7000 + keep - 1));
    expect(await readdir(join(dir, 'recordings'))).toEqual([]);
  });

  it('keeps the arrival times of timed rows beside them (one record per batch) and removes them with the recording', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-rec-'));
    const rec = await SensorRecorder.start(dir, header);
    let written = 0;
    for (const [at, n] of [[0, 3], [10, 1], [20, 1], [130, 5], [140, 2]] as const) {
      written += n;
      rec.append(rows(n, written - n), n, { arrivalMs: at, lines: 100 + written });
    }
    // Written as they are due (the first at once, then every 100 ms), the rest at the end.
    await expect.poll(async () => (await readFile(rec.timesPath)).length).toBe(4 * TIMING_RECORD_BYTES);
    const target = join(dir, 'out.cbor');
    await rec.finish(target, { intervalMs: 10 });
    expect(decodeAcquisition(await readFile(target), 'cbor').payload.values).toHaveLength(written);
    expect(await readdir(dir)).toEqual(['out.cbor']);

    const dropped = await SensorRecorder.start(dir, header);
    dropped.append(rows(2), 2, { arrivalMs: 5, lines: 2 });
    await dropped.discard();
    expect(await readdir(dir)).toEqual(['out.cbor']);
  });

  it('refuses an empty recording and handles more than 65535 rows (4-byte array header)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-rec-'));
    const empty = await SensorRecorder.start(dir, header);
    await expect(empty.finish(join(dir, 'empty.cbor'), { intervalMs: 10 })).rejects.toThrow(/Nothing was recorded/);
    expect(await readdir(dir)).toEqual([]);
    const big = await SensorRecorder.start(dir, header);
    big.append(rows(70_000), 70_000);
    await big.finish(join(dir, 'big.cbor'), { intervalMs: 1 });
    const v = decodeAcquisition(await readFile(join(dir, 'big.cbor')), 'cbor').payload.values;
    expect(v).toHaveLength(70_000);
    expect(v[69_999]![0]).toBe(69_999);
  });
});
