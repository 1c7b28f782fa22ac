import { fork } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkerLink } from '../../src-main/core/audio/worker-link.js';

// The supervisor never leaves a capture process's resources half-held: it asks first (closes the
// IPC channel; a capture process then releases its device and leaves), then SIGTERM, and SIGKILL
// only when both went unheard (issue 30, part 3).
const silent = { info() {}, warn() {}, error() {} };
const dir = mkdtempSync(join(tmpdir(), 'cd-worker-end-'));
let n = 0;
const child = (code: string) => {
  const file = join(dir, `child-${n++}.cjs`);
  writeFileSync(file, `process.send({ t: 'ready', pid: process.pid }); ${code}`);
  return () => fork(file, [], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
};
/** A link to a child running `code`, once the child is up (said 'ready'). */
async function started(code: string): Promise<WorkerLink> {
  let up: () => void = () => undefined;
  const ready = new Promise<void>((r) => (up = r));
  const link = new WorkerLink(child(code), silent, (m) => (m.t === 'ready' ? up() : undefined));
  await ready;
  return link;
}

describe('ending a capture process', () => {
  it('one that leaves when asked goes without a signal', async () => {
    const link = await started(`process.on('disconnect', () => process.exit(0)); setInterval(() => {}, 1000);`);
    const t0 = Date.now();
    const exit = await link.end(1000);
    expect(exit, exit.stderrTail.join("\n")).toMatchObject({ code: 0, signal: null, expected: true });
    expect(Date.now() - t0).toBeLessThan(900);
  });

  it('one that does not hear the question gets SIGTERM after the grace period', async () => {
    const link = await started(`setInterval(() => {}, 1000);`);
    const t0 = Date.now();
    expect(await link.end(500)).toMatchObject({ signal: 'SIGTERM', expected: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
  });

  it('one stuck beyond that (SIGTERM caught, never acted on) gets SIGKILL after a second grace period', async () => {
    const link = await started(`process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);`);
    const t0 = Date.now();
    expect(await link.end(400)).toMatchObject({ signal: 'SIGKILL', expected: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(750);
    expect(link.alive).toBe(false);
  });

  it('a request to a process that does not answer names the time box and starts ending it', async () => {
    const link = await started(`process.on('SIGTERM', () => {}); process.on('message', () => {}); setInterval(() => {}, 1000);`);
    await expect(link.request({ t: 'list' }, 300)).rejects.toMatchObject({ code: 'Unavailable', details: { reason: 'no-answer', request: 'list', timeoutMs: 300 } });
    expect(link.alive).toBe(false); // being ended: takes no more requests
    await expect(link.request({ t: 'list' }, 300)).rejects.toMatchObject({ details: { reason: 'ending' } });
    link.kill();
    await link.exited;
  });
});
