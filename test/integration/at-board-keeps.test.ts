import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AtProgress, Sample } from '../../src-main/core/contract/contract.js';
import { AtClient } from '../../src-main/core/serial/at/at-client.js';
import { serialportOpener } from '../../src-main/core/serial/serialport-opener.js';
import { atBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { fillDisk, smallDisk } from '../support/small-disk.js';

// Issue 13: a sample recorded on a board with the platform's firmware is never lost between the
// board and us. The board's copy goes only once ours is saved; what cannot be decoded is kept as it came.
const cleanups = useCleanups();

type BoardEvent = { event: string; fileName?: string; base64?: string; deleted?: boolean; files?: string[] };

const board = (args: string[]) => atBoard<BoardEvent>(cleanups, ['--time-scale', '0.05', ...args]);

/** The core with the board's port added in AT mode; in `dataDir` if given, else a new one. */
async function core(hostPath: string, dataDir?: string) {
  const c = await startCore(cleanups, { dataDir, uploads: false });
  await c.call('serial.addPath', { path: hostPath });
  await c.call('serial.setSettings', { path: hostPath, settings: { mode: 'at' } });
  return c;
}

const request = (path: string) => ({ path, sensor: 'Built-in accelerometer', frequencyHz: 62.5, lengthMs: 1000, label: 'knock', category: 'training', metadata: {} });

describe('a board sample that cannot be decoded', () => {
  it.each(['file', 'buffer'])('is kept byte for byte as an incomplete sample with a note (storage: %s), and only then deleted on the board', async (storage) => {
    const { pty, events: board$ } = await board(['--at-version', '1.6.0', '--storage', storage, '--truncate-sample']);
    const { call, dataDir } = await core(pty.hostPath);
    const sample = await call<Sample>('at.record', request(pty.hostPath));
    const onBoard = board$.find((e) => e.event === 'sample')!;
    expect(await readFile(join(dataDir, sample.file))).toEqual(Buffer.from(onBoard.base64!, 'base64'));
    expect(sample).toMatchObject({ incomplete: true, state: 'local', label: 'knock', kind: 'other', extra: { board_file: onBoard.fileName, bytes_read: Buffer.from(onBoard.base64!, 'base64').length } });
    expect(sample.note).toMatch(/could not be read .*bytes are kept as they arrived\. Check the firmware version/);
    // Our copy is saved, so the board's may go.
    expect(board$.filter((e) => e.event === 'unlink')).toEqual([expect.objectContaining({ fileName: onBoard.fileName, deleted: true, files: [] })]);
    // And it is in the index for the next start, not only in this answer.
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    expect(samples.map((s) => s.id)).toEqual([sample.id]);
  }, 30_000);
});

describe('a board sample that cannot be saved here', () => {
  it('on a full disk: fails naming the file the board still holds, which was not deleted there', async () => {
    const { pty, events: board$ } = await board(['--at-version', '1.6.0', '--storage', 'file']);
    const disk = await smallDisk(cleanups, 2048);
    const dataDir = join(disk, 'data');
    const { call, events } = await core(pty.hostPath, dataDir);
    await fillDisk(disk);
    const err = await call<Sample>('at.record', request(pty.hostPath)).then(() => null, (e: unknown) => e as Error & { code: string });
    const onBoard = board$.find((e) => e.event === 'sample')!;
    expect(err?.message).toMatch(/read from the board but could not be saved: Could not write to .*data\/samples: the disk is full \(ENOSPC\)\. Free some space on that disk\. The board still holds it as "\/fs\/knock\.0" \(it was not deleted there\)/);
    expect(onBoard.fileName).toBe('/fs/knock.0');
    expect(events.filter(([n]) => n === 'at.progress').at(-1)?.[1]).toMatchObject({ stage: 'failed', error: err!.message } satisfies Partial<AtProgress>);
    expect(board$.some((e) => e.event === 'unlink'), 'nothing deleted on the board').toBe(false);
    expect((await readdir(join(dataDir, 'samples'))).filter((f) => !f.startsWith('.'))).toEqual([]);

    // The board really still has it: deleting it by hand now finds it there.
    const link = await serialportOpener.open(pty.hostPath, 115200);
    const client = new AtClient(link);
    try {
      await client.connect();
      await client.unlink('/fs/knock.0');
    } finally {
      client.close();
      await link.close();
    }
    expect(board$.filter((e) => e.event === 'unlink')).toEqual([expect.objectContaining({ fileName: '/fs/knock.0', deleted: true })]);
  }, 30_000);

  it('with a samples folder that cannot be written: fails naming the file the board still holds', async () => {
    const { pty, events: board$ } = await board(['--at-version', '1.6.0', '--storage', 'file']);
    const { call, dataDir } = await core(pty.hostPath);
    // The samples folder replaced by a file: nothing can be written inside it.
    await rm(join(dataDir, 'samples'), { recursive: true });
    await writeFile(join(dataDir, 'samples'), 'not a folder');
    await expect(call<Sample>('at.record', request(pty.hostPath))).rejects.toThrow(/could not be saved: Could not write to .*samples: a file, not a folder, is in its path \(ENOTDIR\)\. .*The board still holds it as "\/fs\/knock\.0"/);
    expect(board$.some((e) => e.event === 'unlink'), 'nothing deleted on the board').toBe(false);
  }, 30_000);
});
