import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { silentLogger } from '../../src-main/core/log.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { boardValue } from '../support/boards/line-board-values.mjs';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { openPtyPair } from '../support/boards/pty.js';
import { runCli } from '../support/cli.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { fillDisk, smallDisk } from '../support/small-disk.js';

// Issue 13, item 2: a data folder that fills up mid-capture, or cannot be written at all.
const cleanups = useCleanups();

describe('a data folder that fills up during a recording', () => {
  it('stops cleanly, says the disk is full, keeps every row on disk, and recovers them once space is freed', async () => {
    const disk = await smallDisk(cleanups, 4096);
    const dataDir = join(disk, 'data');
    expect((await runCli(['samples', 'list', '--data-dir', dataDir])).code).toBe(0); // index and folders exist
    const filler = await fillDisk(disk, 96);
    const { pty } = await lineBoard(cleanups, ['--rate', '1000']);
    const started = Date.now();
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--frequency', '1000', '--length-ms', '30000', '--label', 'full', '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(1);
    expect(Date.now() - started, 'stopped when the disk filled, not at the set length').toBeLessThan(25_000);
    expect(r.stderr).toMatch(/Could not write to .*: the disk is full \(ENOSPC\)\. Free some space on that disk\. The \d+ rows recorded before that are kept in .*recordings.*samples recover/);
    const kept = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { state: string; needs_attention: boolean; recording: string; rows: number; note: string };
    expect(kept).toMatchObject({ state: 'kept-in-recordings', needs_attention: true });
    expect(kept.recording.startsWith(join(dataDir, 'recordings'))).toBe(true);
    expect(kept.rows).toBeGreaterThan(500);

    // Space is freed; the rows on disk become a sample, each one a board row, in order.
    await rm(filler);
    const rec = await runCli(['samples', 'recover', '--json', '--data-dir', dataDir]);
    expect(rec.code, rec.stderr).toBe(0);
    const s = JSON.parse(rec.stdout.trim()) as { file: string; rows: number; incomplete: boolean; label: string };
    expect(s).toMatchObject({ rows: kept.rows, incomplete: true, label: 'full' });
    const v = decodeAcquisition(await readFile(s.file), 'cbor').payload.values;
    expect(v).toHaveLength(kept.rows);
    const start = Array.from({ length: 60_000 }, (_, i) => i).find((i) => [0, 1, 2].every((a) => v[0]![a] === boardValue(i, a)));
    expect(start).toBeDefined();
    v.forEach((row, k) => expect(row, `row ${k}`).toEqual([0, 1, 2].map((a) => boardValue(start! + k, a))));
  }, 60_000);
});

describe('the app when its disk fills during a recording', () => {
  it('ends that recording with the reason and where the rows are, and records again once space is freed', async () => {
    const disk = await smallDisk(cleanups, 4096);
    const dataDir = join(disk, 'data');
    const { call, saved, close } = await startCore(cleanups, { dataDir, serial: null, uploads: false });
    const ended = (sessionId: string) => saved(sessionId, 20_000);
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 1000 });
    const filler = await fillDisk(disk, 64);
    const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'full', category: 'training', queue: false });
    const failed = await ended(st.sessionId);
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/simulated:imu: Could not write to .*the disk is full \(ENOSPC\).*The \d+ rows recorded before that are kept in .*recordings/);
    expect(failed.interruptions[0]?.error.message).toMatch(/disk is full/);

    // Still usable: the stream runs on, and with space again the next recording is a sample.
    await rm(filler);
    const next = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'after', category: 'training', lengthMs: 500, queue: false });
    expect(await ended(next.sessionId)).toMatchObject({ state: 'saved', error: null });
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    expect(samples.map((x) => x.label)).toEqual(['after']);
    await close();

    // The next start turns the rows the full disk stopped into an incomplete sample.
    const again = await startCore(cleanups, { dataDir, serial: null, uploads: false });
    const list = (await again.call<{ samples: Sample[] }>('samples.list', {})).samples;
    expect(list.find((x) => x.label === 'full')).toMatchObject({ incomplete: true });
    expect(list.find((x) => x.label === 'full')!.extra['rows'] as number).toBeGreaterThan(100);
  }, 60_000);
});

describe('the index on a full disk', () => {
  /** Adds 3,000 bytes on a disk filled to `leaveKb` free; the error it must give. */
  async function addOnFullDisk(store: SampleStore, disk: string, leaveKb: number) {
    const filler = await fillDisk(disk, leaveKb);
    const bytes = Buffer.alloc(3000, 7);
    const outcome = await store.addBytes({ name: 'take.cbor', kind: 'sensor', label: 'x', category: 'training' }, bytes).catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(Error);
    return { filler, bytes, err: outcome as Error };
  }

  it('says the sample file is saved but not indexed, loses nothing, and indexes it at the next start', async () => {
    const disk = await smallDisk(cleanups, 2048);
    const dataDir = join(disk, 'data');
    const store = await SampleStore.open(dataDir, silentLogger);
    // This run is noted as a writer of samples/ with its first sample, while there is room.
    const first = await store.addBytes({ name: 'first.cbor', kind: 'sensor', label: 'x', category: 'training' }, Buffer.alloc(100, 1));
    // Room for the sample file (one 4 KB page), none for the index's journal to grow.
    const { filler, bytes, err } = await addOnFullDisk(store, disk, 8);
    expect(err.message).toMatch(/^The sample was saved as .*samples\/[0-9a-f-]+\.cbor, but the index \(.*samples\.db\) could not record it: the disk is full \(SQLITE_FULL\)\. Free some space on that disk, then restart Capture Desk/);
    const saved = /saved as (\S+\.cbor)/.exec(err.message)![1]!;
    expect(await readFile(saved)).toEqual(bytes);
    expect(store.list().map((x) => x.id)).toEqual([first.id]); // the index itself is intact, just without the new row
    await store.close();
    await rm(filler);
    const reopened = await SampleStore.open(dataDir, silentLogger);
    cleanups.push(() => reopened.close());
    expect(reopened.list().map((s) => join(dataDir, s.file)).sort()).toEqual([join(dataDir, first.file), saved].sort());
  });

  it('a run whose first write meets the full disk leaves a note beside the index instead; the next start looks through samples/', async () => {
    const disk = await smallDisk(cleanups, 2048);
    const dataDir = join(disk, 'data');
    const store = await SampleStore.open(dataDir, silentLogger);
    // Not a byte free: the index cannot take this run's note, an empty file (an inode, no block) can.
    const { filler, err } = await addOnFullDisk(store, disk, 0);
    expect(err.message).toBe(`Could not write to ${join(dataDir, 'samples')}: the disk is full (ENOSPC). Free some space on that disk.`);
    expect(await readFile(join(dataDir, '.look-in-samples'), 'utf8')).toBe('');
    await store.close();
    await rm(filler);
    // What such a run may leave: a whole sample file its row never reached (here put there by hand).
    const left = join(dataDir, 'samples', '0b1c2d3e-0000-4000-8000-000000000001.cbor');
    await writeFile(left, Buffer.alloc(3000, 7));
    const reopened = await SampleStore.open(dataDir, silentLogger);
    cleanups.push(() => reopened.close());
    expect(reopened.list().map((s) => join(dataDir, s.file))).toEqual([left]);
    await expect(readFile(join(dataDir, '.look-in-samples')), 'the note is taken away after the look').rejects.toThrow(/ENOENT/);
  });

  it('a full disk that takes not even an empty file: nothing is written, and the sentence says so', async () => {
    const disk = await smallDisk(cleanups, 2048, 64);
    const dataDir = join(disk, 'data');
    const store = await SampleStore.open(dataDir, silentLogger);
    cleanups.push(() => store.close());
    await fillDisk(disk, 0);
    // No inode left either: no new file at all.
    for (let i = 0; i < 64; i++) {
      const made = await writeFile(join(disk, `inode-${i}`), '').then(() => true, (e: NodeJS.ErrnoException) => (expect(e.code).toBe('ENOSPC'), false));
      if (!made) break;
    }
    const err = (await store.addBytes({ name: 'take.cbor', kind: 'sensor', label: 'x', category: 'training' }, Buffer.alloc(3000, 7)).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/Could not write to the sample index \(.*samples\.db\): the disk is full \(SQLITE_FULL\), so nothing new was put in the data folder\. Free some space on that disk, then try again\./);
    expect((await readdir(join(dataDir, 'samples'))).filter((f) => !f.startsWith('.'))).toEqual([]);
  });
});

describe('a data folder that cannot be written at start-up', () => {
  it('names the folder and what to do when a file stands in its place', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'cd-notdir-')), 'data');
    await writeFile(file, 'not a folder');
    const r = await runCli(['samples', 'list', '--data-dir', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Cannot use the data folder ${file}: a file, not a folder, has that name (EEXIST). Move that file away, or choose another folder with --data-dir DIR.`);
    const below = await runCli(['samples', 'list', '--data-dir', join(file, 'sub')]);
    expect(below.stderr).toMatch(/a file, not a folder, is in its path \(ENOTDIR\)/);
  });

  it('names the folder and what to do when its disk is read-only', async () => {
    const disk = await smallDisk(cleanups, 1024);
    await mkdir(join(disk, 'data'));
    expect(spawnSync('mount', ['-o', 'remount,ro', disk]).status).toBe(0);
    const pty = await openPtyPair();
    cleanups.push(() => pty.close());
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '1000', '--data-dir', join(disk, 'data')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Cannot use the data folder ${join(disk, 'data')}: it is on a read-only disk (EROFS). Make it writable for this user (or remount the disk read-write), or choose another folder with --data-dir DIR.`);
  });
});
