import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, open, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppInfo, RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { encodeWav } from '../../src-main/core/samples/formats/wav.js';
import { memoryKeychain, type Keychain } from '../../src-main/core/secrets/keychain.js';
import { runCli, assertBuilt } from '../support/cli.js';
import { startCore, useCleanups, type Call } from '../support/core-harness.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

const cleanups = useCleanups();

const start = (dataDir: string, keychain: Keychain, ingestionUrl?: string) =>
  startCore(cleanups, { dataDir, keychain, serial: null, ...(ingestionUrl ? { emulator: { url: ingestionUrl }, settings: { qualityHold: 'off' } } : {}) });

async function until(pred: () => boolean | Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const cbor = (i: number) => new Uint8Array(encodeCbor(sensorDoc([[i, 0], [0, i], [i, i]])));
const list = async (call: Call) => (await call<{ samples: Sample[] }>('samples.list', { limit: 1000 })).samples;

/**
 * A data folder with samples made every way the core makes them: a recording, imports, a
 * relabel and recategorise, one uploaded to the emulator, and one older sample without a sidecar
 * (as made before sidecars existed).
 */
async function populate() {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-rebuild-')), 'data');
  const keychain = memoryKeychain();
  const { close, call, events } = await start(dataDir, keychain, srv.url);
  await call('keys.set', { kind: 'api-key', key: 'ei_test_key' });

  const uploaded = await call<Sample>('samples.addFile', { name: 'idle.1.cbor', bytes: cbor(1), category: 'training', queue: true });
  await until(async () => (await list(call)).find((s) => s.id === uploaded.id)!.state === 'uploaded');

  const relabelled = await call<Sample>('samples.addFile', { name: 'wave.2.cbor', bytes: cbor(2), category: 'training', queue: false });
  await call('samples.update', { ids: [relabelled.id], label: 'circle', category: 'testing', metadata: { room: 'lab 2' } });

  const audio = await call<Sample>('samples.addFile', { name: 'noise.3.wav', bytes: new Uint8Array(encodeWav(new Int16Array(1600).map((_, i) => i % 100), { sampleRate: 16000 })), category: 'training', queue: false });

  await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
  const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'shake', category: 'training', lengthMs: 400, metadata: { subject: 'ana' }, queue: false });
  await until(() => events.some(([n, p]) => n === 'record.state' && (p as RecordingStatus).sessionId === st.sessionId && (p as RecordingStatus).state === 'saved'));
  await call('stream.stop', { sourceId: 'simulated:imu' });

  const legacy = await call<Sample>('samples.addFile', { name: 'old.4.cbor', bytes: cbor(4), category: 'validation', label: 'old', queue: false });
  await close();
  await rm(join(dataDir, 'samples', `${legacy.id}.meta.json`));

  const before = await listUnsidecared(dataDir);
  const core2 = await start(dataDir, keychain);
  const samples = await list(core2.call);
  await core2.close();
  expect(samples).toHaveLength(5);
  return { dataDir, keychain, samples, files: before, ids: { uploaded: uploaded.id, relabelled: relabelled.id, audio: audio.id, legacy: legacy.id } };
}

async function listUnsidecared(dataDir: string): Promise<string[]> {
  return (await readdir(join(dataDir, 'samples'))).filter((f) => !f.endsWith('.meta.json') && !f.endsWith('.tmp')).sort();
}

async function overwrite(path: string, offset: number, length: number) {
  const fh = await open(path, 'r+');
  await fh.write(randomBytes(length), 0, length, offset);
  await fh.close();
}

type Damage = (db: string) => Promise<void>;
const DAMAGES: Array<[string, Damage, boolean]> = [
  ['deleted (with its -wal and -shm)', async (db) => { for (const s of ['', '-wal', '-shm']) await rm(db + s, { force: true }); }, false],
  // As a crash after a checkpoint leaves them: an empty journal and the shared-memory index.
  ['deleted, its -wal and -shm left over', async (db) => { await rm(db); await writeFile(`${db}-wal`, ''); await writeFile(`${db}-shm`, Buffer.alloc(32_768)); }, true],
  ['truncated to 0 bytes', async (db) => truncate(db, 0), true],
  ['truncated to half', async (db) => truncate(db, Math.floor((await stat(db)).size / 2)), true],
  ['corrupt: every page after the first overwritten with garbage', async (db) => { const { size } = await stat(db); await overwrite(db, 4096, size - 4096); }, true],
  ['corrupt: the header page overwritten with garbage', async (db) => overwrite(db, 0, 4096), true],
];

describe('the sample index can be lost: the next start rebuilds it from samples/', () => {
  let base: Awaited<ReturnType<typeof populate>>;
  beforeAll(async () => {
    base = await populate();
  }, 60_000);

  it.each(DAMAGES)('samples.db %s', async (_name, damage, keepsAside) => {
    const { dataDir, keychain } = await copyOf(base.dataDir);
    await damage(join(dataDir, 'samples.db'));
    const { close, call, logLines } = await start(dataDir, keychain);
    const info = await call<AppInfo>('app.info');
    expect(info.indexRebuild).not.toBeNull();
    const r = info.indexRebuild!;
    expect(r).toMatchObject({ restored: 4, fromContents: 1, wasPending: 0 });
    expect(r.message).toContain('Upload state, label, category and metadata unknown for 1 samples');
    expect(r.message).toContain('No sample file was deleted.');
    // Said once in the log.
    expect(logLines.filter((l) => l.includes('"sample index rebuilt"'))).toHaveLength(1);
    // The damaged file is kept, not deleted.
    if (keepsAside) {
      expect(r.keptAs.length).toBeGreaterThan(0);
      for (const k of r.keptAs) expect(existsSync(join(dataDir, k)), k).toBe(true);
      expect(r.keptAs.every((k) => k.startsWith('samples.db.corrupt-'))).toBe(true);
    }

    const after = await list(call);
    expect(after.map((s) => s.id).sort()).toEqual(base.samples.map((s) => s.id).sort());
    for (const s of base.samples) {
      const got = after.find((x) => x.id === s.id)!;
      if (s.id === base.ids.legacy) {
        // No sidecar: what the file says is back, the rest is stated lost.
        expect(got).toMatchObject({ kind: 'sensor', label: null, state: 'local', sha256: s.sha256, file: s.file });
        expect(got.extra).toMatchObject({ rows: 3, interval_ms: s.extra['interval_ms'] ?? expect.any(Number) });
        expect(got.note).toMatch(/label, category, metadata and upload state were lost/);
        continue;
      }
      const keep = ({ id, name, file, kind, label, category, metadata, boundingBoxes, structuredLabels, created, bytes, sha256, lengthMs, incomplete, note, platformSampleId, uploadedAt, extra, quality, flagged, heldBack }: Sample) =>
        ({ id, name, file, kind, label, category, metadata, boundingBoxes, structuredLabels, created, bytes, sha256, lengthMs, incomplete, note, platformSampleId, uploadedAt, extra, quality, flagged, heldBack });
      expect(keep(got)).toEqual(keep(s));
      expect(got.state).toBe(s.state === 'uploaded' ? 'uploaded' : 'local');
    }
    expect(after.find((s) => s.id === base.ids.uploaded)).toMatchObject({ state: 'uploaded', platformSampleId: expect.any(Number) });
    expect(after.find((s) => s.id === base.ids.relabelled)).toMatchObject({ label: 'circle', category: 'testing', metadata: { room: 'lab 2' } });
    expect(after.find((s) => s.id === base.ids.audio)).toMatchObject({ kind: 'audio', lengthMs: 100 });
    expect(after.find((s) => s.label === 'shake')).toMatchObject({ kind: 'sensor', metadata: { subject: 'ana' } });

    // No sample file was deleted.
    expect(await listUnsidecared(dataDir)).toEqual(base.files);
    await close();

    // A second start finds a healthy index: no rebuild, same samples, and the one without a sidecar now has one.
    const again = await start(dataDir, keychain);
    expect((await again.call<AppInfo>('app.info')).indexRebuild).toBeNull();
    expect((await list(again.call)).map((s) => s.id).sort()).toEqual(after.map((s) => s.id).sort());
    expect(existsSync(join(dataDir, 'samples', `${base.ids.legacy}.meta.json`))).toBe(true);
    await again.close();
  }, 30_000);

  it('a healthy start rebuilds nothing and reads no sidecar', async () => {
    const { dataDir, keychain } = await copyOf(base.dataDir);
    // Garbage sidecars: a start that read them would restore garbage or complain.
    for (const f of await readdir(join(dataDir, 'samples'))) if (f.endsWith('.meta.json')) await overwrite(join(dataDir, 'samples', f), 0, 8);
    const { call, logLines } = await start(dataDir, keychain);
    expect((await call<AppInfo>('app.info')).indexRebuild).toBeNull();
    expect(logLines.join('')).not.toMatch(/rebuilt|re-indexed|sidecar/);
    expect((await list(call)).length).toBe(5);
    expect((await readdir(dataDir)).filter((f) => f.includes('corrupt'))).toEqual([]);
  });

  it('capture-desk samples list on a damaged index rebuilds it, says so on stderr and lists every sample', async () => {
    assertBuilt();
    const { dataDir } = await copyOf(base.dataDir);
    await overwrite(join(dataDir, 'samples.db'), 0, 4096);
    const r = await runCli(['samples', 'list', '--json', '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(0);
    const listed = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; state: string; label: string | null });
    expect(listed.map((s) => s.id).sort()).toEqual(base.samples.map((s) => s.id).sort());
    expect(listed.find((s) => s.id === base.ids.uploaded)!.state).toBe('uploaded');
    expect(r.stderr).toContain('sample index rebuilt');
    expect(r.stderr).toContain('samples.db.corrupt-');
    const second = await runCli(['samples', 'list', '--json', '--data-dir', dataDir]);
    expect(second.stderr).not.toContain('rebuilt');
  }, 30_000);
});

/**
 * Each case damages its own copy of the populated folder. Without samples.db's -wal and -shm: the
 * core folded the journal in when it closed, but libsql lets go of the file (and SQLite removes
 * those two) only when its objects are garbage-collected, at any moment, also halfway through a copy.
 */
async function copyOf(src: string) {
  const { cp } = await import('node:fs/promises');
  const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-rebuild-case-')), 'data');
  await cp(src, dataDir, { recursive: true, filter: (path) => !/samples\.db-(wal|shm)$/.test(path) });
  return { dataDir, keychain: memoryKeychain() };
}
