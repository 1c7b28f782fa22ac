import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { encodeCbor, jpg, png, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

/**
 * `capture-desk upload` against the spec emulator: the platform's labels files in uploaded folders,
 * the file-name label rule to the letter, boxes only on images, and the small things of issue 14.
 */
const KEY = 'ei_test_key';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(opts: Parameters<typeof startIngestionServer>[0] = {}) {
  const srv = await startIngestionServer(opts);
  cleanups.push(() => srv.close());
  const root = await mkdtemp(join(tmpdir(), 'cd-upload-labels-'));
  const files = join(root, 'files');
  await mkdir(files, { recursive: true });
  const data = join(root, 'data');
  const args = (...extra: string[]) => ['upload', '--ingestion-url', srv.url, '--api-key', KEY, '--data-dir', data, ...extra];
  /** What the local index says, through the CLI's own listing. */
  const local = async () =>
    (await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  return { srv, root, files, args, local };
}

const cbor = (i: number) => encodeCbor(sensorDoc([[i, 1], [i, 2], [i, 3]]));
const lastLine = (out: string) => out.trim().split('\n').at(-1);
const fileParts = (srv: IngestionServer) => srv.requests.filter((q) => q.path.endsWith('/files'));
const byName = (srv: IngestionServer) => Object.fromEntries(srv.samples.map((s) => [s.originalName, s]));

describe('labels files in uploaded folders', () => {
  it('applies an exported info.labels (category, label, structured labels, metadata) over the flags and reports it', async () => {
    const { srv, files, args, local } = await world();
    await mkdir(join(files, 'training'));
    await mkdir(join(files, 'testing'));
    await writeFile(join(files, 'training', 'a.1.cbor'), cbor(1));
    await writeFile(join(files, 'training', 'session.2.cbor'), cbor(2));
    await writeFile(join(files, 'testing', 'b.3.cbor'), cbor(3));
    await writeFile(join(files, 'testing', 'plain.4.cbor'), cbor(4));
    await writeFile(join(files, 'info.labels'), JSON.stringify({
      version: 1,
      files: [
        { path: 'training/a.1.cbor', name: 'a.1', category: 'training', label: { type: 'label', label: 'knock' }, metadata: { subject: 'ana' } },
        { path: 'training/session.2.cbor', category: 'training', label: { type: 'multi-label', labels: [{ label: 'tap', startIndex: 0, endIndex: 1 }, { label: 'rest', startIndex: 2, endIndex: 2 }] } },
        { path: 'testing/b.3.cbor', category: 'testing', label: { type: 'unlabeled' } },
        { path: 'testing/gone.9.cbor', category: 'testing', label: { type: 'label', label: 'x' } },
      ],
    }));
    const r = await runCli(args('--label', 'flag', '--metadata', '{"site":"lab"}', files));
    expect(lastLine(r.stdout)).toBe('4 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(r.code).toBe(0);
    const s = byName(srv);
    expect(s['a.1.cbor']).toMatchObject({ category: 'training', label: 'knock', metadata: { subject: 'ana' } });
    expect(s['session.2.cbor']).toMatchObject({ category: 'training', label: null, metadata: { site: 'lab' }, structuredLabels: [{ label: 'tap', startIndex: 0, endIndex: 1 }, { label: 'rest', startIndex: 2, endIndex: 2 }] });
    expect(s['b.3.cbor']).toMatchObject({ category: 'testing', label: null });
    // Not listed: the flags apply.
    expect(s['plain.4.cbor']).toMatchObject({ category: 'training', label: 'flag', metadata: { site: 'lab' } });
    expect(r.stderr).toContain(`labels file ${join(files, 'info.labels')}: labels for 2 files, structured labels for 1 file, categories for 3 files, metadata for 1 file`);
    expect(r.stderr).toContain('lists 1 file not in this upload: testing/gone.9.cbor');
    // The local index says what the platform stored.
    const mine = Object.fromEntries((await local()).map((x) => [x.name, x]));
    for (const [name, theirs] of Object.entries(s)) {
      expect([mine[name]!.label, mine[name]!.category, mine[name]!.metadata], name).toEqual([theirs.label, theirs.category, theirs.metadata]);
    }
  });

  it('gives each image its boxes from bounding_boxes.labels in one request, and none to other files', async () => {
    const { srv, files, args } = await world({ labelingMethod: 'object_detection' });
    const cat = { label: 'cat', x: 10, y: 20, width: 30, height: 40 };
    const dog = { label: 'dog', x: 1, y: 2, width: 3, height: 4 };
    await writeFile(join(files, 'cat.1.jpg'), jpg());
    await writeFile(join(files, 'dog.2.png'), png());
    await writeFile(join(files, 'empty.3.png'), Buffer.concat([png(), Buffer.from('3')]));
    await writeFile(join(files, 'walk.4.json'), JSON.stringify(sensorDoc()));
    await writeFile(join(files, 'bounding_boxes.labels'), JSON.stringify({
      version: 1, type: 'bounding-box-labels', boundingBoxes: { 'cat.1.jpg': [cat], 'dog.2.png': [dog, cat], 'walk.4.json': [cat] },
    }));
    const r = await runCli(args(files));
    expect(lastLine(r.stdout)).toBe('4 uploaded, 0 already present, 0 rejected, 0 failed');
    const s = byName(srv);
    expect(s['cat.1.jpg']!.boundingBoxes).toEqual([cat]);
    expect(s['dog.2.png']!.boundingBoxes).toEqual([dog, cat]);
    expect(s['empty.3.png']!.boundingBoxes).toEqual([]);
    expect(s['walk.4.json']!.boundingBoxes).toEqual([]);
    // Different boxes and different labels, yet one request: boxes travel per file in a labels part.
    expect(fileParts(srv)).toHaveLength(1);
    expect(fileParts(srv)[0]!.headers['x-bounding-boxes']).toBeUndefined();
    expect(r.stderr).toContain('bounding boxes for 2 images');
    expect(r.stderr).toContain('boxes for 1 file that are not images were not sent (boxes belong to images): walk.4.json');
  });

  it('uses the labels files beside a file named on its own, as the platform uploader does', async () => {
    const { srv, files, args } = await world({ labelingMethod: 'object_detection' });
    const box = { label: 'cup', x: 5, y: 6, width: 7, height: 8 };
    await writeFile(join(files, 'cup.1.png'), png());
    await writeFile(join(files, 'bounding_boxes.labels'), JSON.stringify({ version: 1, type: 'bounding-box-labels', boundingBoxes: { 'cup.1.png': [box] } }));
    const r = await runCli(args(join(files, 'cup.1.png')));
    expect(r.code).toBe(0);
    expect(srv.samples[0]!.boundingBoxes).toEqual([box]);
  });

  it('does not send the files a broken labels file describes, and says what is wrong with it', async () => {
    const { srv, files, args } = await world({ labelingMethod: 'object_detection' });
    await mkdir(join(files, 'imgs'));
    await writeFile(join(files, 'imgs', 'a.1.png'), png());
    await writeFile(join(files, 'imgs', 'bounding_boxes.labels'), JSON.stringify({ version: 1, type: 'bounding-box-labels', boundingBoxes: { 'a.1.png': [{ label: 'a', x: '1', y: 2, width: 3, height: 4 }] } }));
    await writeFile(join(files, 'idle.1.cbor'), cbor(1));
    const r = await runCli(args(files));
    expect(lastLine(r.stdout)).toBe('1 uploaded, 0 already present, 1 rejected, 0 failed');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rejected ${join(files, 'imgs', 'a.1.png')}: ${join(files, 'imgs', 'bounding_boxes.labels')} cannot be used: bounding_boxes.labels: boundingBoxes "a.1.png": x is required`);
    expect(srv.samples.map((s) => s.originalName)).toEqual(['idle.1.cbor']);
  });
});

describe('the file-name label rule, to the letter', () => {
  it('leaves x-label out so the platform applies its rule; different labels share a request; the index equals the platform', async () => {
    const { srv, files, args, local } = await world();
    await writeFile(join(files, 'door knock (1).wav'), wav(100));
    await writeFile(join(files, 'door knock (2).wav'), wav(120));
    await writeFile(join(files, 'idle.1.cbor'), cbor(1));
    await writeFile(join(files, 'wave_2.cbor'), cbor(2));
    await writeFile(join(files, '(odd).cbor'), cbor(3));
    const r = await runCli(args(files));
    expect(lastLine(r.stdout)).toBe('5 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(fileParts(srv)).toHaveLength(1);
    expect(fileParts(srv)[0]!.headers['x-label']).toBeUndefined();
    expect(fileParts(srv)[0]!.headers['x-no-label']).toBeUndefined();
    const platform = Object.fromEntries(srv.samples.map((s) => [s.originalName, s.label]));
    expect(platform).toEqual({ 'door knock (1).wav': 'door knock ', 'door knock (2).wav': 'door knock ', 'idle.1.cbor': 'idle', 'wave_2.cbor': 'wave_2', '(odd).cbor': null });
    expect(Object.fromEntries((await local()).map((s) => [s.name, s.label]))).toEqual(platform);
  });

  it('keeps in the index the label a header carries: --label without the white space HTTP drops', async () => {
    const { srv, files, args, local } = await world();
    await writeFile(join(files, 'x.1.cbor'), cbor(1));
    expect((await runCli(args('--label', ' door knock ', files))).code).toBe(0);
    expect(fileParts(srv)[0]!.headers['x-label']).toBe('door knock');
    expect(srv.samples[0]!.label).toBe('door knock');
    expect((await local())[0]!.label).toBe('door knock');
  });
});

describe('flags and small things', () => {
  it('refuses a null --metadata value, naming the key, before anything is sent', async () => {
    const { srv, files, args } = await world();
    await writeFile(join(files, 'idle.1.cbor'), cbor(1));
    const r = await runCli(args('--metadata', '{"subject":"ana","room":null}', files));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--metadata value of "room" is null');
    expect(srv.requests).toHaveLength(0);
  });

  it('sends --bounding-boxes with the images only and says which files went without', async () => {
    const { srv, files, args } = await world({ labelingMethod: 'object_detection' });
    const box = { label: 'cat', x: 1, y: 2, width: 3, height: 4 };
    await writeFile(join(files, 'cat.png'), png());
    await writeFile(join(files, 'walk.json'), JSON.stringify(sensorDoc()));
    const r = await runCli(args('--bounding-boxes', JSON.stringify([box]), join(files, 'cat.png'), join(files, 'walk.json')));
    expect(lastLine(r.stdout)).toBe('2 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(byName(srv)['cat.png']!.boundingBoxes).toEqual([box]);
    expect(byName(srv)['walk.json']!.boundingBoxes).toEqual([]);
    expect(fileParts(srv).every((q) => q.headers['x-bounding-boxes'] === undefined)).toBe(true);
    expect(r.stderr).toContain('--bounding-boxes applies to images only: 1 other file was sent without boxes (walk.json)');
  });

  it('counts hidden files in the summary', async () => {
    const { srv, files, args } = await world();
    await writeFile(join(files, 'idle.1.cbor'), cbor(1));
    await writeFile(join(files, '.DS_Store'), 'x');
    await writeFile(join(files, '.idle.2.cbor'), cbor(2));
    await mkdir(join(files, '.git'));
    await writeFile(join(files, '.git', 'x.cbor'), cbor(3));
    const r = await runCli(args(files));
    expect(lastLine(r.stdout)).toBe('1 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/skipped 3 hidden entries \(names starting with "\."\): .*\.DS_Store, .*\.git\/, .*\.idle\.2\.cbor/);
    expect(srv.samples).toHaveLength(1);
  });

  it('samples export writes the category of the folder a split sample is written to', async () => {
    const { files, root, args } = await world();
    await writeFile(join(files, 'idle.1.cbor'), cbor(1));
    expect((await runCli(args('--category', 'split', files))).code).toBe(0);
    const out = join(root, 'export');
    expect((await runCli(['samples', 'export', '--out', out, '--data-dir', join(root, 'data')])).code).toBe(0);
    const info = JSON.parse(await readFile(join(out, 'info.labels'), 'utf8'));
    expect(info.files).toEqual([expect.objectContaining({ path: 'training/idle.1.cbor', category: 'training' })]);
  });
});
