import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { endLeftovers, WORKER_MARKER } from '../../src-main/core/audio/leftovers.js';
import { processStart } from '../../src-main/core/process-identity.js';
import { endedWithin, running } from '../support/audio/capture-processes.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
const silent = { info() {}, warn() {}, error() {} };
const PARENT_WATCH = fileURLToPath(new URL('../../src-main/core/audio/parent-watch.ts', import.meta.url));

function sleeper(args: string[] = [WORKER_MARKER]): ChildProcess {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', ...args], { stdio: 'ignore' });
  cleanups.push(() => {
    try {
      c.kill('SIGKILL');
    } catch {
      // gone
    }
  });
  return c;
}

/** A pid that certainly belongs to no process now (one that has ended and was reaped). */
function deadPid(): number {
  return spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim() as unknown as number;
}

async function runDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-run-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('capture processes left over from earlier runs', () => {
  it('ends one whose app is gone; leaves one whose app runs, and a foreign process with a planted pid file', async () => {
    const dir = await runDir();
    const orphan = sleeper();
    const owned = sleeper();
    const foreign = sleeper(['--not-ours']);
    await new Promise((r) => setTimeout(r, 200));
    const file = (c: ChildProcess, parent: number) => writeFileSync(join(dir, `capture-worker-${c.pid}.json`), JSON.stringify({ pid: c.pid, parent, start: processStart(c.pid!) }));
    file(orphan, Number(deadPid()));
    file(owned, process.pid); // this process stands for its running app
    file(foreign, Number(deadPid()));
    // A pid file whose process ended long ago, and one whose pid now belongs to another process.
    writeFileSync(join(dir, 'capture-worker-999999.json'), JSON.stringify({ pid: 999999, parent: 1, start: '1' }));
    writeFileSync(join(dir, `capture-worker-${owned.pid}-reused.json`), 'not a record');

    const ended = await endLeftovers(silent, dir, 300);
    expect(ended).toEqual([orphan.pid]);
    expect((await endedWithin([orphan.pid!], 2000)).left).toEqual([]);
    expect(running(owned.pid!)).toBe(true);
    expect(running(foreign.pid!)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual([`capture-worker-${foreign.pid}.json`, `capture-worker-${owned.pid}-reused.json`, `capture-worker-${owned.pid}.json`].sort());
  });

  it('never ends a process whose pid was reused (start time differs)', async () => {
    const dir = await runDir();
    const p = sleeper();
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(join(dir, `capture-worker-${p.pid}.json`), JSON.stringify({ pid: p.pid, parent: Number(deadPid()), start: '1' }));
    expect(await endLeftovers(silent, dir, 300)).toEqual([]);
    expect(running(p.pid!)).toBe(true);
  });
});

describe('a helper process whose main thread is blocked', () => {
  it('ends within 2 s of its parent’s kill -9, by its watcher thread', async () => {
    // parent (node) → helper (node): the helper starts the watcher, then blocks its main thread in a
    // futex wait (Atomics.wait), as a sound library stuck on a lock does; 'disconnect' cannot run.
    const dir = await runDir();
    const bundled = join(dir, 'parent-watch.mjs');
    const out = await build({ entryPoints: [PARENT_WATCH], bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'warning' });
    writeFileSync(bundled, out.outputFiles[0]!.contents);
    const helper = `
      import { watchParent } from ${JSON.stringify(bundled)};
      watchParent({ graceMs: 500 });
      process.stdout.write('blocked\\n');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    `;
    const parentScript = `
      const { spawn } = require('node:child_process');
      const h = spawn(process.execPath, ['--input-type=module', '-e', ${JSON.stringify(helper)}], { stdio: ['ignore', 'pipe', 'inherit'] });
      h.stdout.on('data', (d) => { if (String(d).includes('blocked')) process.stdout.write(h.pid + '\\n'); });
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', parentScript], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => parent.kill('SIGKILL'));
    const helperPid = await new Promise<number>((resolve, reject) => {
      let out = '';
      parent.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(Number(out.trim()));
      });
      setTimeout(() => reject(new Error('the helper did not start')), 15_000);
    });
    cleanups.push(() => {
      try {
        process.kill(helperPid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(running(helperPid)).toBe(true);
    parent.kill('SIGKILL');
    const r = await endedWithin([helperPid], 5000);
    expect(r.left).toEqual([]);
    expect(r.ms).toBeLessThan(2000);
  }, 30_000);
});
