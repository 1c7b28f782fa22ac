import { mkdtemp, readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINUX_PATHS, WINDOWS_PATHS } from '../../../src-main/core/fs/path-flavor.js';
import { nameClashKey, portableFileName } from '../../../src-main/core/fs/portable-name.js';
import { silentLogger } from '../../../src-main/core/log.js';
import { entryPath, importInfoLabels } from '../../../src-main/core/import/info-labels-import.js';
import { exportFileName, exportSamples } from '../../../src-main/core/samples/exchange.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';

/** What Windows refuses in a file name (the rules portableFileName exists for), checked independently. */
function windowsRefuses(name: string): boolean {
  return /[<>:"/\\|?*\u0000-\u001f]/.test(name) || /[. ]$/.test(name) || /^(con|prn|aux|nul|com[0-9]|lpt[0-9]) *(\.|$)/i.test(name) || name === '';
}

describe('portable file names', () => {
  it('keeps ordinary names as they are', () => {
    for (const ok of ['idle.01.cbor', 'door knock.02.wav', 'wave-left_3.WAV', 'COM10.cbor', 'console.cbor', 'nullable.json', 'Müller.01.cbor']) {
      expect(portableFileName(ok), ok).toBe(ok);
      expect(windowsRefuses(ok), ok).toBe(false);
    }
  });

  it('makes names Windows refuses safe, keeping the extension', () => {
    const cases: Array<[string, string]> = [
      ['left/right.abc12345.cbor', 'left_right.abc12345.cbor'],
      ['C:\\captures\\idle.01.cbor', 'C__captures_idle.01.cbor'],
      ['tap?.a1.wav', 'tap_.a1.wav'],
      ['a:b*c"d<e>f|g.csv', 'a_b_c_d_e_f_g.csv'],
      ['CON.cbor', '_CON.cbor'],
      ['nul', '_nul'],
      ['com1.tar.wav', '_com1.tar.wav'],
      ['LPT9 .cbor', '_LPT9 .cbor'],
      ['idle.cbor.', 'idle.cbor'],
      ['idle.cbor  ', 'idle.cbor'],
      ['idle .cbor', 'idle .cbor'],
      ['.hidden.cbor', '_.hidden.cbor'],
      ['...', 'sample'],
      ['tab\there.cbor', 'tab_here.cbor'],
    ];
    for (const [given, want] of cases) {
      const got = portableFileName(given);
      expect(got, given).toBe(want);
      expect(windowsRefuses(got), got).toBe(false);
    }
    // Negative control: the checker above does refuse the raw names.
    expect(cases.filter(([given]) => given !== 'idle .cbor').every(([given]) => windowsRefuses(given) || given.startsWith('.'))).toBe(true);
  });

  it('shortens an over-long name before its extension, on a whole character', () => {
    const long = `${'é'.repeat(300)}.01.cbor`;
    const got = portableFileName(long);
    expect(got.endsWith('.cbor')).toBe(true);
    expect(Buffer.byteLength(got)).toBeLessThanOrEqual(200);
    expect(got).not.toContain('\uFFFD');
    expect(Buffer.byteLength(portableFileName('x'.repeat(400)))).toBeLessThanOrEqual(200);
  });

  it('numbers names that one case-insensitive folder would merge', () => {
    const used = new Set<string>();
    const take = (n: string) => {
      const f = exportFileName(n, (c) => used.has(nameClashKey(c)));
      used.add(nameClashKey(f));
      return f;
    };
    expect([take('Idle.01.cbor'), take('idle.01.cbor'), take('IDLE.01.CBOR'), take('Me\u0301ssung.cbor'), take('M\u00e9ssung.cbor')]).toEqual([
      'Idle.01.cbor', 'idle.01-2.cbor', 'IDLE.01-3.CBOR', 'M\u00e9ssung.cbor', 'M\u00e9ssung-2.cbor',
    ]);
  });
});

describe('info.labels entry paths', () => {
  it("reads '/' and '\\' as folders and stays inside the export's folder (Windows)", () => {
    const dir = 'C:\\exports\\run 1';
    expect(entryPath(dir, 'training/idle.01.cbor', WINDOWS_PATHS)).toBe('C:\\exports\\run 1\\training\\idle.01.cbor');
    expect(entryPath(dir, 'training\\idle.01.cbor', WINDOWS_PATHS)).toBe('C:\\exports\\run 1\\training\\idle.01.cbor');
    expect(entryPath(dir, 'testing/sub\\door knock.02.WAV', WINDOWS_PATHS)).toBe('C:\\exports\\run 1\\testing\\sub\\door knock.02.WAV');
    for (const bad of ['..\\..\\Users\\ana\\secret.json', '../other/x.cbor', 'C:\\Windows\\x.cbor', 'D:x.cbor', '\\\\nas\\share\\x.cbor', '/etc/x.cbor']) {
      expect(entryPath(dir, bad, WINDOWS_PATHS), bad).toBeNull();
    }
  });

  it('does the same with posix paths', () => {
    expect(entryPath('/home/ana/export', 'training\\idle.01.cbor', LINUX_PATHS)).toBe('/home/ana/export/training/idle.01.cbor');
    expect(entryPath('/home/ana/export', 'training/../training/idle.cbor', LINUX_PATHS)).toBe('/home/ana/export/training/idle.cbor');
    expect(entryPath('/home/ana/export', '../../.ssh/id_rsa.json', LINUX_PATHS)).toBeNull();
    expect(entryPath('/home/ana/export', '/etc/passwd.json', LINUX_PATHS)).toBeNull();
  });
});

describe('export layout on disk', () => {
  it('writes <category>/<file> with names every OS accepts, listed with "/" in info.labels, and imports it back', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-export-names-'));
    const store = await SampleStore.open(join(root, 'data'), silentLogger);
    try {
      const names = ['left/right.a1.jpg', 'CON.jpg', 'Idle.01.jpg', 'idle.01.jpg', 'tap?.jpg', '../../escape.jpg', 'plain.jpg'];
      let n = 0;
      for (const name of names) await store.addBytes({ name, kind: 'image', label: 'x', category: 'training' }, Buffer.from([0xff, 0xd8, n++]));
      const out = join(root, 'out');
      await exportSamples(store, store.list({}), out);

      const files = (await readdir(join(out, 'training'))).sort();
      expect(files).toHaveLength(names.length);
      for (const f of files) expect(windowsRefuses(f), f).toBe(false);
      expect(new Set(files.map(nameClashKey)).size).toBe(files.length);
      expect(files).toEqual(expect.arrayContaining(['left_right.a1.jpg', '_CON.jpg', 'tap_.jpg', '_.._.._escape.jpg', 'plain.jpg']));
      expect(await readdir(root)).toEqual(expect.not.arrayContaining(['escape.jpg'])); // nothing written outside the export

      const text = await readFile(join(out, 'info.labels'), 'utf8');
      const info = JSON.parse(text) as { files: Array<{ path: string; name: string }> };
      expect(text).not.toContain('\\\\');
      for (const e of info.files) {
        expect(e.path).toMatch(/^training\/[^/]+$/);
        expect(files).toContain(e.path.slice('training/'.length));
        expect(`${e.name}.jpg`).toBe(e.path.slice('training/'.length));
      }

      const store2 = await SampleStore.open(join(root, 'data2'), silentLogger);
      try {
        const back = await importInfoLabels(store2, out, { queue: false });
        expect(back.problems).toEqual([]);
        expect(back.added).toHaveLength(names.length);
      } finally {
        await store2.close();
      }
    } finally {
      await store.close();
    }
  });

  it('refuses info.labels entries that point outside its folder, and reads backslash entries', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-import-paths-'));
    const dir = join(root, 'export');
    await mkdir(join(dir, 'training'), { recursive: true });
    await writeFile(join(root, 'outside.jpg'), Buffer.from([0xff, 0xd8, 1]));
    await writeFile(join(dir, 'training', 'idle.01.jpg'), Buffer.from([0xff, 0xd8, 2]));
    await writeFile(
      join(dir, 'info.labels'),
      JSON.stringify({ version: 1, files: [{ path: 'training\\idle.01.jpg', category: 'training' }, { path: '../outside.jpg', category: 'training' }] }),
    );
    const store = await SampleStore.open(join(root, 'data'), silentLogger);
    try {
      const r = await importInfoLabels(store, dir, { queue: false });
      expect(r.added.map((s) => [s.name, s.label])).toEqual([['idle.01.jpg', 'idle']]);
      expect(r.problems).toEqual([{ path: '../outside.jpg', reason: expect.stringContaining('outside the folder') }]);
    } finally {
      await store.close();
    }
  });
});

describe('info.labels named in capitals', () => {
  it('is read as the labels file, not as a folder holding one', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-import-caps-'));
    await mkdir(join(root, 'training'));
    await writeFile(join(root, 'training', 'idle.01.jpg'), Buffer.from([0xff, 0xd8, 3]));
    await writeFile(join(root, 'INFO.LABELS'), JSON.stringify({ version: 1, files: [{ path: 'training/idle.01.jpg', category: 'training' }] }));
    const store = await SampleStore.open(join(root, 'data'), silentLogger);
    try {
      expect((await importInfoLabels(store, join(root, 'INFO.LABELS'), { queue: false })).added).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
