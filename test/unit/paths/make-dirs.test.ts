// makeDirs: mkdir -p made of plain mkdirs, so every failure is an error and none is a hang.
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirs } from '../../../src-main/core/fs/make-dirs.js';
import { useTempDir } from '../../support/temp-dir.js';

const root = useTempDir('cd-make-dirs-');

describe('makeDirs', () => {
  it('makes every missing folder, with the mode asked for, and accepts one that is there', async () => {
    const deep = join(root(), 'a', 'b', 'c');
    await makeDirs(deep, 0o700);
    expect((await stat(deep)).isDirectory()).toBe(true);
    expect((await stat(join(root(), 'a'))).mode & 0o777).toBe(0o700);
    await makeDirs(deep);
    await makeDirs(root());
  });

  it('names a file in the way: EEXIST for the folder itself, ENOTDIR for one in its path', async () => {
    const file = join(root(), 'f');
    await writeFile(file, 'x');
    await expect(makeDirs(file)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(makeDirs(join(file, 'sub', 'deeper'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('takes a folder another process made meanwhile as made', async () => {
    const d = join(root(), 'race');
    await Promise.all([makeDirs(join(d, 'x')), makeDirs(join(d, 'x')), mkdir(d, { recursive: true })]);
    expect((await stat(join(d, 'x'))).isDirectory()).toBe(true);
  });

  it.runIf(process.platform === 'linux')('answers with an error under /proc, where recursive mkdir never returns', async () => {
    await expect(makeDirs('/proc/capture-desk/x')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
