// Whose claim is it: real processes, looked up the way another Capture Desk on the same data folder does.
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { processClaims } from '../../../src-main/core/upload/claim-owner.js';

describe('processClaims', () => {
  it('tags this process with host, pid and start, and finds it alive', () => {
    const owners = processClaims();
    expect(owners.me).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/${process.pid}/\\d+$`));
    expect(owners.alive(owners.me)).toBe(true);
  });

  it('finds a live child alive, and gone once it has exited; another start with that pid is another process', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const tag = processClaims(hostname(), child.pid!).me;
    const here = processClaims();
    expect(here.alive(tag)).toBe(true);
    if (process.platform === 'linux') {
      const [, , start] = tag.split('/');
      expect(Number(start)).toBeGreaterThan(0);
      expect(here.alive(tag.replace(/\/\d+$/, `/${Number(start) + 1}`))).toBe(false);
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(here.alive(tag)).toBe(false);
  });

  it('takes an unreadable tag or another machine\'s for gone', () => {
    const here = processClaims();
    expect(here.alive('garbage')).toBe(false);
    expect(here.alive(`not-${hostname()}/${process.pid}/0`)).toBe(false);
  });
});
