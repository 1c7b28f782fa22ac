import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_COMMANDS } from '../../src-main/cli/commands.js';
import { cliArgs, runCliIfAsked, userArgs } from '../../src-main/electron/cli-passthrough.js';

describe('userArgs', () => {
  it('drops the script path only where argv has one', () => {
    const packaged = ['/opt/Capture Desk/capture-desk', 'samples', 'list'];
    expect(userArgs(packaged, { defaultApp: false, isElectron: true })).toEqual(['samples', 'list']);
    // `electron .` and plain Node: [exe, script, ...args].
    expect(userArgs(['electron', '.', 'samples'], { defaultApp: true, isElectron: true })).toEqual(['samples']);
    expect(userArgs(['node', 'main.js', 'samples'], { defaultApp: false, isElectron: false })).toEqual(['samples']);
  });
});

describe('cliArgs', () => {
  it('picks the CLI for every command, help and version, from the command on', () => {
    for (const c of CLI_COMMANDS) expect(cliArgs([c, '--help'])).toEqual([c, '--help']);
    for (const a of ['help', '--help', '-h', '--version', '-v']) expect(cliArgs([a])).toEqual([a]);
    // AppRun adds --no-sandbox in front where user namespaces are off; macOS may add -psn_….
    expect(cliArgs(['--no-sandbox', 'samples', 'list', '--json'])).toEqual(['samples', 'list', '--json']);
    expect(cliArgs(['-psn_0_12345', '--no-sandbox', '--help'])).toEqual(['--help']);
  });

  it('leaves everything else to the GUI: nothing, switches, files and URLs from the desktop entry', () => {
    expect(cliArgs([])).toBeNull();
    expect(cliArgs(['--no-sandbox'])).toBeNull();
    expect(cliArgs(['--ozone-platform=wayland', '--enable-logging'])).toBeNull();
    expect(cliArgs(['/home/ana/captures/idle.01.cbor'])).toBeNull();
    expect(cliArgs(['--no-sandbox', 'file:///home/ana/x.wav', 'samples'])).toBeNull();
    expect(cliArgs(['C:\\captures\\idle.01.cbor'])).toBeNull();
    expect(cliArgs(['constructor'])).toBeNull();
  });
});

describe('runCliIfAsked (Node standing in for the Electron binary)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cd-passthrough-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A CLI that reports how it was started, then exits with the code it is asked for.
  const cli = join(dir, 'capture-desk.js');
  writeFileSync(
    cli,
    `require('node:fs').writeFileSync(process.env.REPORT, JSON.stringify({ args: process.argv.slice(2), asNode: process.env.ELECTRON_RUN_AS_NODE ?? null }));
const at = process.argv.indexOf('--exit');
const code = at === -1 ? 0 : Number(process.argv[at + 1]);
if (process.argv.includes('--kill')) process.kill(process.pid, 'SIGTERM'); else process.exitCode = code;
`,
  );
  const report = join(dir, 'report.json');
  const base = { defaultApp: false, isElectron: true, execPath: process.execPath, cliPath: cli, env: { ...process.env, REPORT: report } };

  it('runs the CLI with ELECTRON_RUN_AS_NODE=1 and returns its exit code', () => {
    const code = runCliIfAsked({ ...base, argv: ['/opt/Capture Desk/capture-desk', '--no-sandbox', 'samples', 'list', '--exit', '7'] });
    expect(code).toBe(7);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual({ args: ['samples', 'list', '--exit', '7'], asNode: '1' });
    expect(runCliIfAsked({ ...base, argv: ['app', 'upload', '--exit', '0'] })).toBe(0);
  });

  it('turns death by a signal into the shell convention 128 + n', () => {
    expect(runCliIfAsked({ ...base, argv: ['app', 'serve', '--kill'] })).toBe(128 + 15);
  });

  it('returns null and starts nothing when the GUI is meant', () => {
    rmSync(report, { force: true });
    let spawned = false;
    const spawn = () => {
      spawned = true;
      throw new Error('must not spawn');
    };
    expect(runCliIfAsked({ ...base, spawn, argv: ['/opt/Capture Desk/capture-desk'] })).toBeNull();
    expect(runCliIfAsked({ ...base, spawn, argv: ['/opt/Capture Desk/capture-desk', '--no-sandbox', '/tmp/a.cbor'] })).toBeNull();
    expect(spawned).toBe(false);
  });

  it('says which binary could not be started', () => {
    const messages: string[] = [];
    const code = runCliIfAsked({ ...base, execPath: join(dir, 'no-such-app'), argv: ['app', 'samples'], stderr: (t) => messages.push(t) });
    expect(code).toBe(1);
    expect(messages.join('')).toContain(`could not start the command line (${join(dir, 'no-such-app')})`);
  });
});

describe('main.ts', () => {
  it('hands CLI runs over before anything else runs (the single-instance lock above all)', () => {
    const source = readFileSync(new URL('../../src-main/electron/main.ts', import.meta.url), 'utf8');
    const body = source.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('import ') && !l.trim().startsWith('//') && !/^\s+\w.*from '.*';$|^} from/.test(l));
    expect(body[0]).toBe('passCliThrough(import.meta.url);');
  });
});
