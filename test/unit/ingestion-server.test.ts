import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import type { FilesResponse, IngestionServer } from '../support/ingestion-server/server.js';
import { encodeCbor, jpg, png, sensorDoc, signed, wav } from '../support/ingestion-server/fixtures.js';

const KEY = 'ei_test_key';
let srv: IngestionServer;

interface Part { name: string; data: Buffer | string; field?: string }

const json = (doc: unknown = sensorDoc()): Buffer => Buffer.from(JSON.stringify(doc));
// DOM typings want ArrayBuffer-backed views, which a pooled Buffer is not declared to be.
const bytes = (d: Buffer | string): Uint8Array<ArrayBuffer> | string => (typeof d === 'string' ? d : new Uint8Array(d));

async function upload(parts: Part[], headers: Record<string, string> = {}, category = 'training') {
  const form = new FormData();
  for (const p of parts) form.append(p.field ?? 'data', new Blob([bytes(p.data)]), p.name);
  const res = await fetch(`${srv.url}/api/${category}/files`, {
    method: 'POST', headers: { 'x-api-key': KEY, ...headers }, body: form,
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text, body: res.status === 200 ? JSON.parse(text) as FilesResponse : null };
}

async function legacy(body: Buffer | string, headers: Record<string, string>, category = 'training') {
  const res = await fetch(`${srv.url}/api/${category}/data`, { method: 'POST', headers: { 'x-api-key': KEY, ...headers }, body: bytes(body) });
  return { status: res.status, text: await res.text() };
}

async function mgmt(path: string, init: RequestInit = {}) {
  const res = await fetch(`${srv.managementUrl}/api${path}`, {
    ...init, headers: { 'x-api-key': KEY, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, body: await res.json() as Record<string, any> };
}

beforeAll(async () => { srv = await startIngestionServer(); });
afterAll(async () => { await srv.close(); });
beforeEach(() => srv.reset());

describe('authentication', () => {
  it('answers 401 text/plain without or with an unknown x-api-key', async () => {
    for (const headers of [{}, { 'x-api-key': 'nope' }] as Record<string, string>[]) {
      const res = await fetch(`${srv.url}/api/training/files`, { method: 'POST', headers, body: new FormData() });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    const legacyRes = await fetch(`${srv.url}/api/training/data`, { method: 'POST', body: '{}' });
    expect(legacyRes.status).toBe(401);
    expect(srv.samples).toHaveLength(0);
  });
  it('answers management calls without a key with a 401 JSON envelope', async () => {
    const res = await fetch(`${srv.managementUrl}/api/1/raw-data/project-metadata`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ success: false, error: expect.any(String) });
  });
});

describe('files endpoints', () => {
  it('stores a sample, answers text/plain JSON with per-file results and derives the label', async () => {
    const r = await upload([{ name: 'idle.01.json', data: json() }]);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^text\/plain/);
    expect(r.body).toEqual({ success: true, files: [{ success: true, fileName: 'idle.01.json', sampleId: 1 }] });
    expect(srv.samples[0]).toMatchObject({ id: 1, category: 'training', filename: 'idle.01.json', label: 'idle', metadata: {}, boundingBoxes: [], totalLengthMs: 30 });
    expect(srv.requests[0]).toMatchObject({ method: 'POST', path: '/api/training/files', fileCount: 1, status: 200 });
    expect(srv.requests[0]?.headers['x-api-key']).toBe(KEY);
  });
  it('round-trips large binary parts and quoted names; ignores parts not named data', async () => {
    const big = Buffer.concat([png(), randomBytes(3 * 1024 * 1024)]);
    const r = await upload([{ name: 'we"ird\r\nname.png', data: big }, { name: 'x.json', data: json(), field: 'other' }]);
    expect(r.body?.files).toEqual([{ success: true, fileName: 'we"ird\r\nname.png', sampleId: 1 }]);
    expect(srv.samples[0]?.bytes.equals(big)).toBe(true);
    expect(srv.samples[0]?.label).toBe('we');
    expect(srv.requests[0]?.fileCount).toBe(1);
  });
  it('derives labels with letters, digits, whitespace, - and _', async () => {
    await upload([{ name: 'my wave_2-b.3.cbor', data: encodeCbor(sensorDoc()) }, { name: 'updown.wav', data: wav(250) }]);
    expect(srv.samples.map((s) => s.label)).toEqual(['my wave_2-b', 'updown']);
  });
  it('keeps the white space the file-name pattern matches; HTTP drops it from an x-label value', async () => {
    // Without x-label the platform applies ^[a-zA-Z0-9\s-_]+ to the name: the match ends in a space.
    const r = await upload([{ name: 'door knock (1).wav', data: wav(100) }, { name: 'idle.1.json', data: json() }, { name: 'wave_2.json', data: json(sensorDoc([[9, 9]])) }]);
    expect(r.body?.success).toBe(true);
    expect(srv.samples.map((s) => s.label)).toEqual(['door knock ', 'idle', 'wave_2']);
    // A header value's trailing white space is not part of it (RFC 9110 field values): the bytes on
    // the wire say "door knock ", the platform reads "door knock". Sent raw, so no client trims it.
    const form = new FormData();
    form.append('data', new Blob([bytes(wav(120))]), 'door knock (2).wav');
    const req = new Request(srv.url, { method: 'POST', body: form });
    const body = Buffer.from(await req.arrayBuffer());
    const status = await new Promise<number>((resolve, reject) => {
      const c = http.request(`${srv.url}/api/training/files`, {
        method: 'POST', headers: { 'x-api-key': KEY, 'x-label': 'door knock  ', 'content-type': req.headers.get('content-type')!, 'content-length': body.length },
      }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)); });
      c.on('error', reject);
      c.end(body);
    });
    expect(status).toBe(200);
    expect(srv.samples[3]?.label).toBe('door knock');
  });
  it('honours x-label, x-no-label and x-add-date-id; keeps duplicate names', async () => {
    await upload([{ name: 'a.1.json', data: json() }], { 'x-label': 'walk' });
    await upload([{ name: 'a.1.json', data: json() }], { 'x-no-label': '1' });
    await upload([{ name: 'a.1.json', data: json() }], { 'x-add-date-id': '1' });
    expect(srv.samples.map((s) => s.label)).toEqual(['walk', null, 'a']);
    expect(srv.samples[1]?.filename).toBe('a.1.json');
    expect(srv.samples[2]?.filename).toMatch(/^a\.1\.[0-9a-f]{16}$/);
  });
  it('attaches x-metadata and rejects invalid JSON with 400', async () => {
    await upload([{ name: 'm.json', data: json() }], { 'x-metadata': '{"site":"lab","n":3}' });
    expect(srv.samples[0]?.metadata).toEqual({ site: 'lab', n: '3' });
    const bad = await upload([{ name: 'm.json', data: json() }], { 'x-metadata': '{nope' });
    expect(bad).toMatchObject({ status: 400, text: 'x-metadata is not valid JSON' });
    expect(srv.samples).toHaveLength(1);
  });
  it('rejects unsupported types and invalid content per file, with status 200', async () => {
    const rows = sensorDoc([[1, 2], [3]]);
    const r = await upload([
      { name: 'x.txt', data: 'hi' }, { name: 'ok.png', data: png() }, { name: 'bad.json', data: json(rows) },
      { name: 'bad.wav', data: 'RIFF' }, { name: 'bad.jpg', data: png() }, { name: 'e.csv', data: '\n1,2' },
      { name: 'ok.jpg', data: jpg() }, { name: 'ok.csv', data: 'timestamp,x\n0,1\n' }, { name: 'junk.cbor', data: Buffer.from([0xff, 0x00]) },
    ]);
    expect(r.status).toBe(200);
    expect(r.body?.success).toBe(false);
    expect(r.body?.files.map((f) => f.error ?? 'ok')).toEqual([
      expect.stringMatching(/^unsupported file type \.txt/), 'ok',
      'invalid sensor data file: payload.values[1] must be an array of 2 numbers (one per sensor)',
      'invalid WAV file: missing RIFF/WAVE header', 'invalid JPEG file: bad magic bytes',
      'invalid CSV file: missing header line', 'ok', 'ok', expect.stringMatching(/^invalid sensor data file/),
    ]);
    expect(srv.samples[0]?.bytes.equals(png())).toBe(true);
  });
  it('enforces the size and file-count limits', async () => {
    const limit = json().length;
    srv.setFaults({ maxFileBytes: limit, maxFilesPerRequest: 2 });
    const r = await upload([{ name: 'big.json', data: json(sensorDoc(Array.from({ length: 50 }, () => [1, 2]))) }, { name: 's.json', data: json() }]);
    expect(r.body?.files.map((f) => f.success)).toEqual([false, true]);
    expect(r.body?.files[0]?.error).toMatch(new RegExp(`^file too large: \\d+ bytes \\(limit ${limit} bytes\\)$`));
    const many = await upload([1, 2, 3].map((i) => ({ name: `f.${i}.json`, data: json() })));
    expect(many).toMatchObject({ status: 400, text: 'Too many files in one request: 3 (limit 2)' });
  });
  it('checks duplicates only with x-disallow-duplicates', async () => {
    await upload([{ name: 'd.json', data: json() }]);
    await upload([{ name: 'd.json', data: json() }]);
    const r = await upload([{ name: 'e.json', data: json() }], { 'x-disallow-duplicates': '1' });
    expect(r.body?.files[0]).toEqual({ success: false, fileName: 'e.json', error: 'An item with this hash already exists (ID 1)' });
    const l = await legacy(json(), { 'x-file-name': 'f.json', 'content-type': 'application/json', 'x-disallow-duplicates': 'true' });
    expect(l).toEqual({ status: 400, text: 'An item with this hash already exists (ID 1)' });
    expect(srv.samples).toHaveLength(2);
  });
  it('uses the validation, split and post-processing sets', async () => {
    expect((await upload([{ name: 'v.json', data: json() }], {}, 'validation')).status).toBe(400);
    srv.setFaults({ validationEnabled: true });
    await upload([{ name: 'v.json', data: json() }], {}, 'validation');
    await upload([{ name: 'p.json', data: json() }], {}, 'post-processing');
    await upload(Array.from({ length: 20 }, (_, i) => ({ name: `s.${i}.json`, data: json(sensorDoc([[i, 0]])) })), {}, 'split');
    const cats = srv.samples.map((s) => s.category);
    expect(cats.slice(0, 2)).toEqual(['validation', 'post-processing']);
    expect(new Set(cats.slice(2))).toEqual(new Set(['training', 'testing']));
  });
  it('applies info.labels per file', async () => {
    const labels = { version: 1, files: [
      { path: 'one.json', category: 'testing', label: { type: 'label', label: 'wave' }, metadata: { k: 'v' } },
      { path: 'two.json', label: { type: 'multi-label', labels: [{ label: 'a', startIndex: 0, endIndex: 1 }] } },
      { path: 'three.json', label: { type: 'unlabeled' } },
    ] };
    const r = await upload([{ name: 'info.labels', data: JSON.stringify(labels) }, ...['one', 'two', 'three'].map((n) => ({ name: `${n}.json`, data: json(sensorDoc([[n.length, 1]])) }))]);
    expect(r.body?.files.map((f) => f.fileName)).toEqual(['one.json', 'two.json', 'three.json']);
    expect(srv.samples.map((s) => [s.category, s.label, s.metadata])).toEqual([['testing', 'wave', { k: 'v' }], ['training', null, {}], ['training', null, {}]]);
    expect(srv.samples[1]?.structuredLabels).toEqual([{ label: 'a', startIndex: 0, endIndex: 1 }]);
    expect((await upload([{ name: 'info.labels', data: '{' }, { name: 'z.json', data: json() }])).status).toBe(400);
  });
  it('answers 400 for malformed multipart and 421 without Content-Type', async () => {
    const post = (headers: Record<string, string>, body: string) =>
      fetch(`${srv.url}/api/training/files`, { method: 'POST', headers: { 'x-api-key': KEY, ...headers }, body: bytes(body) });
    const bad = await post({ 'content-type': 'multipart/form-data; boundary=XYZ' }, '--XYZ\r\nContent-Disposition: form-data; name="data"\r\n\r\nno end');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/malformed multipart/);
    expect((await post({ 'content-type': 'multipart/form-data' }, 'x')).status).toBe(400);
    const blob = new Blob([Buffer.from('--XYZ\r\n\r\n')]);
    expect((await fetch(`${srv.url}/api/training/files`, { method: 'POST', headers: { 'x-api-key': KEY }, body: blob })).status).toBe(421);
  });
});

describe('x-bounding-boxes', () => {
  const box = { label: 'cup', x: 1, y: 2, width: 30, height: 40 };
  const send = (value: string, names = ['img.png']) =>
    upload(names.map((name) => ({ name, data: png() })), { 'x-bounding-boxes': value });

  it('is silently discarded in single-label projects, even when invalid', async () => {
    for (const v of [JSON.stringify([box]), '{not json']) expect((await send(v)).body?.success).toBe(true);
    expect(srv.samples.map((s) => s.boundingBoxes)).toEqual([[], []]);
  });
  it('stores valid boxes and rejects invalid ones per file with the spec texts', async () => {
    srv.setFaults({ labelingMethod: 'object_detection' });
    await send(JSON.stringify([box]));
    expect(srv.samples[0]?.boundingBoxes).toEqual([box]);
    const cases: [string, string][] = [
      ['{not json', 'x-bounding-boxes is not valid json'],
      [JSON.stringify(box), 'x-bounding-boxes is not a valid array'],
      [JSON.stringify([{ ...box, label: undefined, x: undefined }]), 'x-bounding-boxes label is required'],
      [JSON.stringify([{ ...box, x: '1' }]), 'x-bounding-boxes x is required'],
      [JSON.stringify([{ ...box, y: null }]), 'x-bounding-boxes y is required'],
      [JSON.stringify([box, { ...box, width: undefined }]), 'x-bounding-boxes width is required'],
      [JSON.stringify([{ ...box, height: '40' }]), 'x-bounding-boxes height is required'],
      [JSON.stringify([1]), 'x-bounding-boxes label is required'],
    ];
    for (const [value, error] of cases) {
      const r = await send(value, ['a.png', 'b.png']);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ success: false, files: ['a.png', 'b.png'].map((fileName) => ({ success: false, fileName, error })) });
    }
    expect(srv.samples).toHaveLength(1);
  });
  it('lets bounding_boxes.labels take precedence per file', async () => {
    srv.setFaults({ labelingMethod: 'object_detection' });
    const file = { version: 1, type: 'bounding-box-labels', boundingBoxes: { 'a.png': [{ ...box, label: 'lid' }] } };
    const r = await upload([{ name: 'bounding_boxes.labels', data: JSON.stringify(file) }, { name: 'a.png', data: png() }, { name: 'b.png', data: png() }], { 'x-bounding-boxes': 'nope' });
    expect(r.body?.files.map((f) => f.error ?? 'ok')).toEqual(['ok', 'x-bounding-boxes is not valid json']);
    expect(srv.samples[0]?.boundingBoxes).toEqual([{ ...box, label: 'lid' }]);
  });
});

describe('boxes belong to images', () => {
  const box = { label: 'cup', x: 1, y: 2, width: 30, height: 40 };
  const sensor = () => ({ name: 'walk.1.json', data: json() });

  it('applies x-bounding-boxes to the images of a request and stores other files without them', async () => {
    srv.setFaults({ labelingMethod: 'object_detection' });
    const r = await upload([{ name: 'cat.png', data: png() }, sensor(), { name: 'yes.wav', data: wav(50) }], { 'x-bounding-boxes': JSON.stringify([box]) });
    expect(r.body?.files.map((f) => f.success)).toEqual([true, true, true]);
    expect(srv.samples.map((s) => [s.originalName, s.boundingBoxes])).toEqual([['cat.png', [box]], ['walk.1.json', []], ['yes.wav', []]]);
  });
  it('does not reject a sensor file for a bad header it does not use', async () => {
    srv.setFaults({ labelingMethod: 'object_detection' });
    const r = await upload([{ name: 'cat.png', data: png() }, sensor()], { 'x-bounding-boxes': '{nope' });
    expect(r.body?.files.map((f) => f.error ?? 'ok')).toEqual(['x-bounding-boxes is not valid json', 'ok']);
  });
  it('ignores boxes that labels files give a non-image file', async () => {
    srv.setFaults({ labelingMethod: 'object_detection' });
    const boxes = { version: 1, type: 'bounding-box-labels', boundingBoxes: { 'walk.1.json': [box], 'cat.jpg': [box] } };
    const info = { version: 1, files: [{ path: 'walk.1.json', category: 'training', boundingBoxes: [box] }] };
    await upload([{ name: 'bounding_boxes.labels', data: JSON.stringify(boxes) }, { name: 'info.labels', data: JSON.stringify(info) }, sensor(), { name: 'cat.jpg', data: jpg() }]);
    expect(srv.samples.map((s) => s.boundingBoxes)).toEqual([[], [box]]);
  });
  it('reads bounding_boxes.labels only in the platform format, naming what is wrong', async () => {
    srv.setFaults({ labelingMethod: 'object_detection' });
    const r = await upload([{ name: 'bounding_boxes.labels', data: JSON.stringify({ version: 1, boundingBoxes: { 'a.png': [box] } }) }, { name: 'a.png', data: png() }]);
    expect(r).toMatchObject({ status: 400, text: 'bounding_boxes.labels: type must be "bounding-box-labels"' });
    expect(srv.samples).toHaveLength(0);
  });
});

describe('legacy data endpoints and signatures', () => {
  it('accepts JSON and CBOR, answering the stored name', async () => {
    expect(await legacy(json(), { 'x-file-name': 'run.1.json', 'content-type': 'application/json' })).toEqual({ status: 200, text: 'run.1.json' });
    const c = await legacy(encodeCbor(sensorDoc()), { 'x-file-name': 'run.2.cbor', 'content-type': 'application/cbor', 'x-add-date-id': '1' }, 'anomaly');
    expect(c.text).toMatch(/^run\.2\.[0-9a-f]{16}$/);
    expect(srv.samples.map((s) => [s.label, s.category, s.contentType])).toEqual([['run', 'training', 'application/json'], ['run', 'testing', 'application/cbor']]);
  });
  it('answers 421 for missing headers and 400 for bad content', async () => {
    expect(await legacy(json(), { 'content-type': 'application/json' })).toEqual({ status: 421, text: 'Missing header x-file-name' });
    expect(await legacy(Buffer.from('{}'), { 'x-file-name': 'a.json' })).toEqual({ status: 421, text: 'Missing header Content-Type' });
    expect((await legacy('x', { 'x-file-name': 'a.json', 'content-type': 'text/plain' })).status).toBe(400);
    expect(await legacy('{"a":1}', { 'x-file-name': 'a.json', 'content-type': 'application/json' }))
      .toEqual({ status: 400, text: 'invalid sensor data file: protected must be an object' });
    srv.setFaults({ maxFileBytes: 10 });
    expect((await legacy(json(), { 'x-file-name': 'a.json', 'content-type': 'application/json' })).text).toMatch(/^file too large/);
  });
  it('verifies HS256 signatures when given an HMAC key', async () => {
    srv.setFaults({ hmacKey: 'secret' });
    for (const format of ['json', 'cbor'] as const) {
      const good = signed(sensorDoc(), 'secret', format);
      const wrong = signed(sensorDoc(), 'other', format);
      const headers = { 'x-file-name': `s.${format}`, 'content-type': `application/${format}` };
      expect((await legacy(good, headers)).status).toBe(200);
      expect(await legacy(wrong, headers)).toEqual({ status: 400, text: 'signature verification failed: HMAC-SHA256 mismatch' });
    }
    const r = await upload([{ name: 'w.cbor', data: signed(sensorDoc(), 'other', 'cbor') }]);
    expect(r.body?.files[0]?.error).toBe('signature verification failed: HMAC-SHA256 mismatch');
  });
});

describe('faults', () => {
  it('fails the next n requests with 500', async () => {
    srv.setFaults({ fail500Next: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await upload([{ name: `f.${i}.json`, data: json(sensorDoc([[i, 1]])) }])).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(srv.samples).toHaveLength(1);
  });
  it('resets the connection and then recovers', async () => {
    srv.setFaults({ resetNext: 2 });
    await expect(upload([{ name: 'r.json', data: json() }])).rejects.toThrow();
    await expect(upload([{ name: 'big.png', data: Buffer.concat([png(), randomBytes(4 << 20)]) }])).rejects.toThrow();
    expect(srv.requests.map((r) => r.status)).toEqual([0, 0]);
    expect(srv.samples).toHaveLength(0);
    expect((await upload([{ name: 'r.json', data: json() }])).status).toBe(200);
  });
  it('serves concurrent uploads', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => upload([{ name: `c.${i}.json`, data: json(sensorDoc([[i, i]])) }])));
    expect(rs.every((r) => r.body?.success)).toBe(true);
    expect(new Set(srv.samples.map((s) => s.id)).size).toBe(20);
  });
  it('delays answers', async () => {
    srv.setFaults({ delayMs: 150 });
    const t = Date.now();
    await upload([{ name: 'd.json', data: json() }]);
    expect(Date.now() - t).toBeGreaterThanOrEqual(140);
  });
});

describe('management endpoints', () => {
  it('summarises the dataset in the envelope', async () => {
    await upload([{ name: 'idle.1.json', data: json() }, { name: 'yes.1.wav', data: wav(1500) }], { 'x-metadata': '{"room":"a"}' });
    await upload([{ name: 'idle.2.json', data: json(sensorDoc([[9, 9]])) }], {}, 'testing');
    const { status, body } = await mgmt('/1/raw-data/project-metadata');
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    const m = body.metadata;
    expect(m).toMatchObject({ totalItemCount: 3, ratio: { count: { training: 2, testing: 1, validation: 0 } } });
    expect(m.training).toMatchObject({ itemCount: 2, totalLengthNumber: 1530, minFrequency: 100, maxFrequency: 16000, isTimeseries: true });
    expect(m.training.labels).toEqual([{ label: 'idle', totalLength: 30, totalLengthStr: '30ms', dataCount: 1 }, { label: 'yes', totalLength: 1500, totalLengthStr: '2s', dataCount: 1 }]);
    expect(m.training.metadataFilterOptions.optionsList).toEqual([{ key: 'room', options: ['a'] }]);
    expect(m.all.itemCount).toBe(3);
    expect(m.postProcessing.itemCount).toBe(0);
    expect((await mgmt('/7/raw-data/project-metadata')).body).toEqual({ success: false, error: 'Project not found' });
  });
  it('moves samples between categories', async () => {
    await upload([{ name: 'm.json', data: json() }]);
    const move = (id: number, newCategory: unknown) => mgmt(`/1/raw-data/${id}/move`, { method: 'POST', body: JSON.stringify({ newCategory }) });
    expect((await move(1, 'testing')).body).toEqual({ success: true });
    expect(srv.samples[0]?.category).toBe('testing');
    expect((await move(99, 'testing')).body).toEqual({ success: false, error: 'Sample not found' });
    expect((await move(1, 'bogus')).body).toMatchObject({ success: false, error: expect.stringMatching(/newCategory/) });
  });
});
