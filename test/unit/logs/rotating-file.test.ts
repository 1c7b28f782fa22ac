// The rotating log file on the real filesystem: cap, files kept, valid JSON lines, appending after
// a restart, a kill -9 in the middle of writing, and a logs folder that cannot be made.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { RotatingLogFile } from '../../../src-main/core/logs/rotating-file.js';

const tempDir = () => mkdtemp(join(tmpdir(), 'cd-logfile-'));
/** A JSON line of exactly 100 bytes carrying its sequence number. */
const line = (n: number) => {
  const head = JSON.stringify({ n, pad: '' });
  return JSON.stringify({ n, pad: 'x'.repeat(99 - head.length) }) + '\n';
};

/** Every line of the files, oldest file first; each must parse. */
async function readAll(dir: string, name: string): Promise<Array<{ n: number }>> {
  const files = (await readdir(dir)).filter((f) => f.startsWith(name));
  const order = files.sort((a, b) => rank(b, name) - rank(a, name));
  const rows: Array<{ n: number }> = [];
  for (const f of order) {
    const text = await readFile(join(dir, f), 'utf8');
    for (const l of text.split('\n').filter(Boolean)) rows.push(JSON.parse(l) as { n: number });
  }
  return rows;
}
const rank = (file: string, name: string) => (file === name ? 0 : Number(file.slice(name.length + 1)));

describe('RotatingLogFile', () => {
  it('rotates before a line would pass the cap, keeps the newest files and drops the oldest', async () => {
    const dir = await tempDir();
    const errors: string[] = [];
    const f = new RotatingLogFile({ dir, name: 'app.log', maxBytes: 1000, keep: 2, onError: (m) => errors.push(m) });
    for (let n = 0; n < 45; n++) f.write(line(n));
    await f.close();

    expect(errors).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['app.log', 'app.log.1', 'app.log.2']);
    for (const name of ['app.log', 'app.log.1', 'app.log.2']) expect((await stat(join(dir, name))).size).toBeLessThanOrEqual(1000);
    // 10 lines per file: lines 0–14 went with the files that fell off the end, the rest are in order.
    expect((await readAll(dir, 'app.log')).map((r) => r.n)).toEqual(Array.from({ length: 25 }, (_, i) => i + 20));
  });

  it('writes nothing in the caller’s turn of the event loop, everything by the next flush', async () => {
    const dir = await tempDir();
    const f = new RotatingLogFile({ dir, name: 'app.log', onError: () => {} });
    for (let n = 0; n < 500; n++) f.write(line(n));
    expect((await stat(f.path)).size).toBe(0);
    await new Promise((r) => setTimeout(r, 50)); // flushed promptly without being asked
    expect((await stat(f.path)).size).toBe(500 * 100);
    await f.close();
  });

  it('appends to the current file after a restart', async () => {
    const dir = await tempDir();
    const first = new RotatingLogFile({ dir, name: 'app.log', maxBytes: 10_000, onError: () => {} });
    first.write(line(1));
    await first.close();
    const second = new RotatingLogFile({ dir, name: 'app.log', maxBytes: 10_000, onError: () => {} });
    second.write(line(2));
    await second.close();
    expect((await readAll(dir, 'app.log')).map((r) => r.n)).toEqual([1, 2]);
  });

  it('counts a reopened file’s size toward the cap', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'app.log'), line(0).repeat(9));
    const f = new RotatingLogFile({ dir, name: 'app.log', maxBytes: 1000, onError: () => {} });
    f.write(line(1));
    f.write(line(2));
    await f.close();
    expect((await readFile(join(dir, 'app.log.1'), 'utf8')).split('\n').filter(Boolean)).toHaveLength(10);
    expect((await readAll(dir, 'app.log')).slice(-1)).toEqual([expect.objectContaining({ n: 2 })]);
  });

  it('says once that the logs folder cannot be made, and goes on without it', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'logs'), 'a file where the folder should be');
    const errors: string[] = [];
    const f = new RotatingLogFile({ dir: join(dir, 'logs'), name: 'app.log', onError: (m) => errors.push(m) });
    for (let n = 0; n < 10; n++) f.write(line(n));
    await f.flush();
    await f.close();
    expect(f.working).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cannot open the log file .*logs.app\.log .*logging to stderr only/);
  });

  it('loses no written line when killed -9 while writing and rotating, and the next run appends', async () => {
    const dir = await tempDir();
    const driver = await bundleDriver();
    const run = (from: number) =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, [driver, dir, String(from)], { stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        // Killed while it writes as fast as it can (rotating every ~20 lines).
        setTimeout(() => child.kill('SIGKILL'), 700);
        child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`driver exited ${code}: ${err}`))));
      });
    await run(0);
    const afterKill = await readAll(dir, 'app.log');
    // It rotated (20 lines a file, 3 old files kept). The current file may be missing: the kill
    // can fall between renaming it to app.log.1 and opening the next one (a loaded machine made
    // that instant the 700th ms once); nothing written is lost then, and the next run makes it.
    expect(afterKill.length).toBeGreaterThanOrEqual(60);
    expect(existsSync(join(dir, 'app.log.3'))).toBe(true);
    // Kept lines are consecutive: no gap inside what survived (the oldest files rotate away).
    const ns = afterKill.map((r) => r.n);
    expect(ns).toEqual(Array.from({ length: ns.length }, (_, i) => ns[0]! + i));

    await run(1_000_000);
    const after = (await readAll(dir, 'app.log')).map((r) => r.n);
    expect(after.some((n) => n >= 1_000_000)).toBe(true);
    expect(after.every((n, i) => i === 0 || n > after[i - 1]!)).toBe(true);
  }, 30_000);
});

/** A small program that logs numbered lines through RotatingLogFile until killed. */
async function bundleDriver(): Promise<string> {
  const out = join(await tempDir(), 'driver.mjs');
  const source = fileURLToPath(new URL('../../../src-main/core/logs/rotating-file.ts', import.meta.url));
  await build({
    stdin: {
      contents: `import { RotatingLogFile } from ${JSON.stringify(source)};
        const [dir, from] = process.argv.slice(2);
        const f = new RotatingLogFile({ dir, name: 'app.log', maxBytes: 2000, keep: 3, onError: (m) => { console.error(m); process.exit(3); } });
        let n = Number(from);
        const line = (n) => { const h = JSON.stringify({ n, pad: '' }); return JSON.stringify({ n, pad: 'x'.repeat(99 - h.length) }) + '\\n'; };
        const tick = () => { for (let i = 0; i < 20; i++) f.write(line(n++)); setImmediate(tick); };
        tick();`,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'silent',
  });
  return out;
}
