import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const jsonLines = (text: string) => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('capture-desk samples', () => {
  it('lists samples as JSON lines with the platform answer, exports and re-imports info.labels', async () => {
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const root = await mkdtemp(join(tmpdir(), 'cd-samples-'));
    await mkdir(join(root, 'in'));
    await writeFile(join(root, 'in', 'idle.1.cbor'), encodeCbor(sensorDoc([[1, 2], [3, 4]])));
    await writeFile(join(root, 'in', 'wave.1.cbor'), encodeCbor(sensorDoc([[5, 6], [7, 8]])));
    const data = join(root, 'data');
    expect((await runCli(['upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--metadata', '{"subject":"ana"}', '--data-dir', data, join(root, 'in')])).code).toBe(0);

    const listed = jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ label: 'idle', category: 'training', state: 'uploaded', platform: { sample_id: expect.any(Number), error: null } });
    expect(String(listed[0]!.file)).toContain(join(root, 'in'));

    const out = join(root, 'export');
    expect((await runCli(['samples', 'export', '--out', out, '--data-dir', data])).code).toBe(0);
    expect((await readdir(join(out, 'training'))).sort()).toEqual(['idle.1.cbor', 'wave.1.cbor']);
    const info = JSON.parse(await readFile(join(out, 'info.labels'), 'utf8'));
    expect(info.files).toContainEqual(expect.objectContaining({ path: 'training/idle.1.cbor', category: 'training', label: { type: 'label', label: 'idle' }, metadata: { subject: 'ana' } }));

    const data2 = join(root, 'data2');
    const imp = await runCli(['samples', 'import', out, '--data-dir', data2]);
    expect(imp.code).toBe(0);
    const imported = jsonLines(imp.stdout);
    expect(imported.map((s) => [s.label, s.state, (s.metadata as Record<string, string>).subject])).toEqual([['idle', 'local', 'ana'], ['wave', 'local', 'ana']]);
    // Indexed where they lie, with their length; a second import finds them instead of adding them twice.
    expect(imported.map((s) => [String(s.file).startsWith(out), s.length_ms])).toEqual([[true, 20], [true, 20]]);
    const again = await runCli(['samples', 'import', out, '--data-dir', data2]);
    expect([again.code, again.stdout, again.stderr.trim()]).toEqual([0, '', 'Imported 0 samples, 2 already in this data folder (same file, same content).']);
    // --copy: the data folder keeps its own copies, so the export can go.
    const data3 = join(root, 'data3');
    const copied = jsonLines((await runCli(['samples', 'import', out, '--copy', '--data-dir', data3])).stdout);
    expect(copied.map((s) => [String(s.file).startsWith(join(data3, 'samples')), s.label, s.length_ms])).toEqual([[true, 'idle', 20], [true, 'wave', 20]]);
  });

  it('exports sensor samples as CSV and imports CSV readings as acquisition samples', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-csv-'));
    const csv = join(root, 'knock.3.csv');
    await writeFile(csv, 'timestamp,accX (m/s2),accY (m/s2)\n0,1.5,2\n10,1.25,-3\n20,0,4.5\n');
    const data = join(root, 'data');
    const r = await runCli(['samples', 'import', csv, '--category', 'testing', '--data-dir', data]);
    expect(r.code).toBe(0);
    const [s] = jsonLines(r.stdout);
    expect(s).toMatchObject({ name: 'knock.3.cbor', label: 'knock', category: 'testing', kind: 'sensor', length_ms: 30 });
    const msg = decodeAcquisition(await readFile(String(s!.file)), 'cbor');
    expect(msg.payload).toMatchObject({ interval_ms: 10, sensors: [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }], values: [[1.5, 2], [1.25, -3], [0, 4.5]] });

    const out = join(root, 'out');
    expect((await runCli(['samples', 'export', '--csv', '--out', out, '--data-dir', data])).code).toBe(0);
    expect(await readFile(join(out, 'testing', 'knock.3.csv'), 'utf8')).toContain('accX (m/s2)');
  });

  it('explains what is missing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-csv-'));
    const r = await runCli(['samples', 'import', root, '--data-dir', join(root, 'd')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('No info.labels');
    expect((await runCli(['samples', 'export', '--data-dir', join(root, 'd')])).stderr).toContain('--out');
    expect((await runCli(['samples', 'list', '--state', 'gone', '--data-dir', join(root, 'd')])).code).toBe(2);
  });
});
