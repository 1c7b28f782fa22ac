// Help that leads somewhere, through the built CLI: every command made of sub-commands lists them
// on --help (and `help GROUP` says the same), says so when given none or an unknown one, and a
// mistake in a sub-command points at that sub-command's own help, which answers (no loop back to
// an error). Nothing here needs a board or a network: flags are refused before anything opens.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GROUPS } from '../../src-main/cli/groups.js';
import { runCli, startServe } from '../support/cli.js';
import { stopChild } from '../support/stop-child.js';

const groups = Object.values(GROUPS);
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cd-cli-help-'));
});

describe('capture-desk GROUP --help', () => {
  it.each(groups.map((g) => [g.name, g] as const))('%s --help lists its sub-commands, one line each, on stdout (exit 0)', async (name, g) => {
    const r = await runCli([name, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    for (const s of g.subs) expect(r.stdout).toMatch(new RegExp(`^  ${name} ${s.name} +\\S.*$`, 'm'));
    expect(r.stdout).not.toMatch(/what\?/);
    // `help GROUP` is the same page.
    expect(await runCli(['help', name])).toEqual(r);
  });

  it.each(groups.map((g) => [g.name, g] as const))('%s with no sub-command says so and lists them on stderr (exit 2)', async (name, g) => {
    const r = await runCli([name]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^capture-desk ${name} needs a sub-command\\.\\n`));
    for (const s of g.subs) expect(r.stderr).toMatch(new RegExp(`^  ${name} ${s.name} +\\S`, 'm'));
  });

  it.each(groups.map((g) => [g.name, g] as const))('%s with an unknown sub-command names it and lists the real ones (exit 2), touching nothing', async (name, g) => {
    const dataDir = join(root, `unknown-${name}`);
    const r = await runCli([name, 'frobnicate', '--data-dir', dataDir]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^capture-desk ${name} has no sub-command "frobnicate"\\.\\n`));
    for (const s of g.subs) expect(r.stderr).toMatch(new RegExp(`^  ${name} ${s.name} +\\S`, 'm'));
    expect(existsSync(dataDir), 'an unknown sub-command created the data directory').toBe(false);
  });
});

const everySub = groups.flatMap((g) => g.subs.map((s) => [`${g.name} ${s.name}`] as const));

describe('capture-desk GROUP SUB', () => {
  it.each(everySub)('%s --help answers with its usage (exit 0), as does "help" before the same words', async (cmd) => {
    const r = await runCli([...cmd.split(' '), '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: capture-desk ${cmd.split(' ')[0]} `));
    expect(r.stdout).toContain(cmd);
    expect(await runCli(['help', ...cmd.split(' ')])).toEqual(r);
  });

  it.each(everySub)('%s: a usage error names the sub-command and points at its own help (exit 2)', async (cmd) => {
    const r = await runCli([...cmd.split(' '), '--no-such-flag', '--data-dir', join(root, 'flags')]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^capture-desk ${cmd}: Unknown option --no-such-flag\\.\\nRun "capture-desk ${cmd} --help" for usage\\.\\n$`));
  });

  it('record serial and record audio: a missing or wrong value points at their own help', async () => {
    const serial = await runCli(['record', 'serial']);
    expect(serial.code).toBe(2);
    expect(serial.stderr).toBe('capture-desk record serial: --port PATH is required (e.g. /dev/ttyACM0).\nRun "capture-desk record serial --help" for usage.\n');
    const audio = await runCli(['record', 'audio', '--rate', 'fast']);
    expect(audio.code).toBe(2);
    expect(audio.stderr).toMatch(/^capture-desk record audio: --rate must be a whole number .*\nRun "capture-desk record audio --help" for usage\.\n$/);
  });
});

describe('capture-desk help', () => {
  it('help COMMAND is COMMAND --help for commands without sub-commands too; help alone is --help', async () => {
    for (const name of ['serve', 'upload', 'connect', 'check']) {
      const help = await runCli(['help', name]);
      expect(help.code, name).toBe(0);
      expect(help).toEqual(await runCli([name, '--help']));
    }
    expect(await runCli(['help'])).toEqual(await runCli(['--help']));
  });

  it('help with an unknown command says it is unknown (exit 2)', async () => {
    const r = await runCli(['help', 'frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^capture-desk: unknown command "frobnicate"\./);
  });
});

describe('record serial --help', () => {
  it('says the axis names the app gives a board that prints bare numbers: value1..N', async () => {
    const r = await runCli(['record', 'serial', '--help']);
    expect(r.stdout).toMatch(/--axes A,B,\.\.\. +axis names \(default: from a header line or name:value pairs, else\n +value1\.\.N;/);
    expect(r.stdout).not.toContain('axis1..N');
  });
});

describe('serve --help', () => {
  it('says which of its lines go to stdout and which to stderr, as a lab station run prints them', async () => {
    const help = await runCli(['serve', '--help']);
    expect(help.stdout).toContain(`certificate's SHA-256 fingerprint on the next line); nothing else goes to stdout. The rest goes to
stderr: the address other machines use ("Reachable from other machines at …"), advice and
warnings in sentences, and the log as JSON lines.`);

    const s = await startServe(['--host', '0.0.0.0', '--self-signed', '--port', '0', '--data-dir', join(root, 'station')], { env: { CAPTURE_DESK_API_KEY: 'ei_0123456789abcdef' } });
    try {
      for (let i = 0; i < 200 && !/Anyone with this URL/.test(s.stderr()); i++) await new Promise((r) => setTimeout(r, 25));
      const out = s.stdout().split('\n');
      expect(out).toEqual([s.url, expect.stringMatching(/^SHA-256 fingerprint: [0-9A-F:]{95}$/), '']);
      const sentences = s.stderr().split('\n').filter((l) => l && !l.startsWith('{'));
      const tail = s.url.replace(/^https:\/\/127\.0\.0\.1/, ''); // :PORT/TOKEN/
      expect(sentences.filter((l) => l.startsWith('Reachable from other machines at https://') && l.endsWith(tail))).toHaveLength(1);
      for (const l of s.stderr().split('\n').filter((x) => x.startsWith('{'))) expect(() => JSON.parse(l)).not.toThrow();
    } finally {
      await stopChild(s.child, 'SIGINT');
    }
  }, 60_000);
});
