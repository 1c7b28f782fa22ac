import { Encoder } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { encodeAcquisition } from '../../../src-main/core/samples/formats/acquisition.js';
import { checkSample } from '../../../src-main/core/samples/quality/check-sample.js';

const cbor = new Encoder({ useRecords: false, variableMapSize: true });
const SENSORS = [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }, { name: 'accZ', units: 'm/s2' }];

/** A believable 3-axis capture: three sines with a little deterministic noise. */
function rows(n: number, f: (i: number) => number[] = (i) => [Math.sin(i / 10) + ((i * 7919) % 13) / 100, Math.cos(i / 7) + ((i * 104729) % 11) / 100, 9.81 + Math.sin(i / 3) / 10]): number[][] {
  return Array.from({ length: n }, (_, i) => f(i));
}

function file(values: number[][], o: { intervalMs?: number; sensors?: typeof SENSORS; format?: 'cbor' | 'json' } = {}): Buffer {
  return encodeAcquisition({ payload: { device_type: 'TEST', interval_ms: o.intervalMs ?? 10, sensors: o.sensors ?? SENSORS, values } }, { format: o.format ?? 'cbor' });
}

const check = (bytes: Uint8Array, extra: Record<string, unknown> = {}, name = 'x.cbor', minLengthMs = 500) => checkSample({ bytes }, { name, kind: 'sensor', extra }, { minLengthMs });
const codes = async (p: ReturnType<typeof check>) => (await p).findings.map((f) => `${f.code}:${f.severity}`);

describe('sensor sample checks', () => {
  it('finds nothing wrong with a clean capture, in CBOR and in JSON', async () => {
    expect(await codes(check(file(rows(1000))))).toEqual([]);
    expect(await codes(check(file(rows(1000), { format: 'json' }), {}, 'x.json'))).toEqual([]);
  });

  it('flags an axis that never changes (warning) and a sample where none does (error)', async () => {
    const oneFlat = await check(file(rows(500, (i) => [Math.sin(i / 5), 0, Math.cos(i / 5)])));
    expect(oneFlat.findings).toEqual([expect.objectContaining({ code: 'flat-axis', severity: 'warning' })]);
    expect(oneFlat.findings[0]!.message).toContain('"accY" (always 0)');
    const allFlat = await check(file(rows(500, () => [1, 2, 3])));
    expect(allFlat.findings).toEqual([expect.objectContaining({ code: 'flat-axis', severity: 'error' })]);
  });

  it('flags a long stretch of one exact value inside a moving axis, not a short one', async () => {
    const stuck = (from: number, to: number) => rows(1000, (i) => [i >= from && i < to ? 0.5 : Math.sin(i / 5), Math.cos(i / 5), Math.sin(i / 3)]);
    const long = await check(file(stuck(300, 520))); // 2.2 s at 100 Hz
    expect(long.findings).toEqual([expect.objectContaining({ code: 'flat-stretch', severity: 'warning' })]);
    expect(long.findings[0]!.message).toContain('"accX" for 2.2 s');
    expect(await codes(check(file(stuck(300, 480))))).toEqual([]); // 1.8 s: a pause, not a stuck sensor
  });

  it('finds gaps in a clock column the board prints, and a clock going backwards', async () => {
    const sensors = [{ name: 'millis', units: 'ms' }, ...SENSORS.slice(0, 2)];
    const clock = (skip: (i: number) => number) => rows(1000, (i) => [1000 + 10 * skip(i), Math.sin(i / 5), Math.cos(i / 5)]);
    expect(await codes(check(file(clock((i) => i), { sensors })))).toEqual([]);
    const oneGap = await check(file(clock((i) => (i < 500 ? i : i + 3)), { sensors }));
    expect(oneGap.findings).toEqual([expect.objectContaining({ code: 'timestamp-gaps', severity: 'warning' })]);
    expect(oneGap.findings[0]!.message).toMatch(/jumps 1 time, about 3 readings/);
    const many = await check(file(clock((i) => i + 5 * Math.floor(i / 100)), { sensors }));
    expect(many.findings[0]).toMatchObject({ code: 'timestamp-gaps', severity: 'error' });
    const reset = await check(file(clock((i) => (i < 500 ? i : i - 500)), { sensors }));
    expect(reset.findings.map((f) => f.message).join()).toContain('goes backwards 1 time');
    // The clock column is not "flat" and not judged as a sensor axis.
    expect(reset.findings.every((f) => f.code === 'timestamp-gaps')).toBe(true);
  });

  it('reports lines the capture counted as lost or rejected, by share of the sample', async () => {
    const bytes = file(rows(1000));
    expect(await codes(check(bytes, { dropped_lines: 0, rejected_lines: 0 }))).toEqual([]);
    expect(await codes(check(bytes, { dropped_lines: 5 }))).toEqual(['lost-readings:warning']);
    expect(await codes(check(bytes, { dropped_lines: 120 }))).toEqual(['lost-readings:error']);
    expect(await codes(check(bytes, { rejected_lines: 1 }))).toEqual(['rejected-lines:warning']);
    const both = await check(bytes, { dropped_lines: 50, rejected_lines: 30 });
    expect(both.findings.map((f) => f.code)).toEqual(['lost-readings', 'rejected-lines']);
    expect(both.findings[0]!.message).toMatch(/about 50 readings \(4\.8%\) never arrived/);
  });

  it('flags arrival jitter of several sample periods: stalls the reader could not count, or a flaky link', async () => {
    const bytes = file(rows(1000));
    expect(await codes(check(bytes, { jitter_ms: 4, interval_ms: 10 }))).toEqual([]);
    expect(await codes(check(bytes, { jitter_ms: 15, interval_ms: 1 }))).toEqual([]); // many periods at 1 kHz, but only USB-burst sized
    expect(await codes(check(bytes, { jitter_ms: 30, interval_ms: 10 }))).toEqual(['irregular-timing:warning']);
    const stalls = await check(bytes, { jitter_ms: 103.5, interval_ms: 11.77 });
    expect(stalls.findings).toEqual([expect.objectContaining({ code: 'irregular-timing', severity: 'error' })]);
    expect(stalls.findings[0]!.message).toContain('readings arrived 104 ms away from a steady 85.0 Hz on average (8.8 sample periods)');
  });

  it('compares the declared rate with the measured one: ±1% fine, beyond warns, beyond ±5% is an error', async () => {
    const bytes = file(rows(1000)); // 100 Hz declared
    expect(await codes(check(bytes, { measured_hz: 100.9 }))).toEqual([]);
    expect(await codes(check(bytes, { measured_hz: 99.1 }))).toEqual([]);
    expect(await codes(check(bytes, { measured_hz: 102 }))).toEqual(['rate-mismatch:warning']);
    expect(await codes(check(bytes, { measured_hz: 94 }))).toEqual(['rate-mismatch:error']);
    expect((await check(bytes, { measured_hz: 110 })).findings[0]!.message).toContain('the file says 100.0 Hz but the board sent 110.0 Hz');
  });

  it("a Nordic board's session-info rate against its own timestamps: ±1% fine, beyond warns, beyond ±5% is an error; only for Nordic takes", async () => {
    const bytes = file(rows(1000)); // 100 Hz declared (the session info's hz)
    const nordic = (tsHz: number) => check(bytes, { protocol: 'nordic', board_ts_hz: tsHz });
    expect(await codes(nordic(100.4))).toEqual([]);
    expect(await codes(nordic(97.5))).toEqual(['rate-mismatch:warning']);
    expect(await codes(nordic(80))).toEqual(['rate-mismatch:error']);
    expect((await nordic(80)).findings[0]!.message).toContain("the board's session info says 100.0 Hz but its own timestamps run at 80.00 Hz (20");
    expect((await nordic(80)).findings[0]!.message).toContain('squeezed');
    expect(await codes(check(bytes, { board_ts_hz: 80 }))).toEqual([]); // not a Nordic take: nothing read from it
  });

  it('flags a sample shorter than the minimum, and nothing when the minimum is 0', async () => {
    const short = file(rows(30)); // 300 ms
    expect(await codes(check(short))).toEqual(['too-short:error']);
    expect((await check(short)).findings[0]!.message).toContain('300 ms recorded, the minimum is 500 ms');
    expect(await codes(check(short, {}, 'x.cbor', 0))).toEqual([]);
  });

  it('turns a broken file into one "unreadable" error instead of throwing', async () => {
    const cases: Array<[string, Uint8Array]> = [
      ['x.cbor', Buffer.from([0xa3, 0x01])],
      ['x.cbor', file(rows(100)).subarray(0, 500)], // truncated mid-row
      ['x.json', Buffer.from('{"protected":{"ver":"v1","alg":"none"},"signature":"","payload":{"device_type":"X","interval_ms":10,"sensors":[{"name":"a","units":"m"}],"values":[[1],["x"]]}}')],
      ['x.json', Buffer.from('not json at all')],
      ['x.cbor', cbor.encode({ protected: { ver: 'v1', alg: 'none' }, signature: '', payload: { device_type: 'X', interval_ms: 10, sensors: [{ name: 'a', units: 'm' }], values: [] } })],
    ];
    for (const [name, bytes] of cases) {
      const r = await check(bytes, {}, name);
      expect(r.findings, name).toEqual([expect.objectContaining({ code: 'unreadable', severity: 'error' })]);
      expect(r.findings[0]!.message).toMatch(/^Unreadable: .+\. The platform would refuse it too/);
    }
  });

  it('reads CBOR the way other encoders write it: half and single floats, open-ended arrays, tags, other key orders', async () => {
    const half = (v: number) => { const b = Buffer.alloc(3); b[0] = 0xf9; b.writeUInt16BE(v, 1); return b; };
    const single = (v: number) => { const b = Buffer.alloc(5); b[0] = 0xfa; b.writeFloatBE(v, 1); return b; };
    const text = (s: string) => Buffer.concat([Buffer.from([0x60 + s.length]), Buffer.from(s)]);
    // payload.values as an indefinite array of rows [half 1.5, single 0.25, -3]; a tag on the map.
    const row = (i: number) => Buffer.concat([Buffer.from([0x83]), half(0x3e00), single(i / 4), Buffer.from([0x22])]);
    const header = cbor.encode({ device_type: 'X', interval_ms: 10, sensors: SENSORS });
    const payload = Buffer.concat([
      Buffer.from([0xa4]), header.subarray(1), // same map, one entry more
      text('values'), Buffer.from([0x9f]), ...Array.from({ length: 100 }, (_, i) => row(i)), Buffer.from([0xff]),
    ]);
    const msg = Buffer.concat([
      Buffer.from([0xd9, 0xd9, 0xf7, 0xa3]), text('protected'), cbor.encode({ ver: 'v1', alg: 'none' }), text('signature'), text(''), text('payload'), payload,
    ]);
    const r = await check(msg, {}, 'x.cbor', 0);
    // accX is always 1.5 (from the half float), accZ always -3: read right, so flagged as flat.
    expect(r.findings).toEqual([expect.objectContaining({ code: 'flat-axis', severity: 'warning' })]);
    expect(r.findings[0]!.message).toContain('"accX" (always 1.5), "accZ" (always -3)');
    // values before sensors: read through the regular decoder, same verdict as usual.
    const reordered = cbor.encode({ protected: { ver: 'v1', alg: 'none' }, signature: '', payload: { values: rows(100), device_type: 'X', interval_ms: 10, sensors: SENSORS } });
    expect(await codes(check(reordered, {}, 'x.cbor', 0))).toEqual([]);
  });

  it('checks the file on disk the same as its bytes', async () => {
    const { mkdtemp, writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const path = join(await mkdtemp(join(tmpdir(), 'cd-quality-')), 'a.cbor');
    const bytes = file(rows(40, () => [1, 1, 1]));
    await writeFile(path, bytes);
    const fromDisk = await checkSample({ path }, { name: 'a.cbor', kind: 'sensor' }, { minLengthMs: 500 });
    const fromBytes = await checkSample({ bytes }, { name: 'a.cbor', kind: 'sensor' }, { minLengthMs: 500 });
    expect(fromDisk.findings).toEqual(fromBytes.findings);
    expect(fromDisk.findings.map((f) => f.code)).toEqual(['too-short', 'flat-axis']); // errors first
    const gone = await checkSample({ path: path + '.missing' }, { name: 'a.cbor', kind: 'sensor' }, { minLengthMs: 500 });
    expect(gone.findings[0]).toMatchObject({ code: 'unreadable' });
  });
});
