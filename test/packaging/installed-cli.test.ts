// The `capture-desk` command of an installed app: resources/bin/capture-desk run from a real
// offline `electron-builder --linux dir` build, laid out as the .deb installs it
// (/opt/Capture Desk, a space included) inside a temp root, linked from <root>/usr/bin by the real
// after-install script (rendered as electron-builder renders it, paths moved under the temp root).
//
// The Electron binary cannot be downloaded here: the packaged `capture-desk` executable is a
// stand-in that runs this Node, and only when ELECTRON_RUN_AS_NODE=1 (what the launcher must set).
// Plain Node cannot read inside an asar archive as Electron can, so the file resources/app.asar is
// replaced by a directory of the same name holding its extracted contents: every path the launcher
// and the app compute (resources/app.asar/dist/cli/capture-desk.js, ...) stays the same. One
// difference remains: Electron dlopen()s native modules from app.asar.unpacked; here they load
// from the extracted copy inside that directory (still the packaged files, not the repository's).
//
// Needs the app's build output: run `npm run build` first (npm test does).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { extractAll } from '@electron/asar';
import { CLI_COMMANDS } from '../../src-main/cli/commands.js';
import { run, tail } from './helpers.js';
import { buildLinuxDir, ROOT, type LinuxDirBuild } from './linux-dir.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(command: string, args: string[], o: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment of a user's shell: no trace of vitest or of an inherited ELECTRON_RUN_AS_NODE. */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST') && k !== 'NODE_OPTIONS' && k !== 'ELECTRON_RUN_AS_NODE') env[k] = v;
  return { ...env, ...extra };
}

/** A deb maintainer script as electron-builder renders it (FpmTarget: ${executable}, ${sanitizedProductName}). */
function render(script: string): string {
  return readFileSync(join(ROOT, script), 'utf8').replace(/\$\{([a-zA-Z]+)\}/g, (_, name: string) => (name === 'executable' ? 'capture-desk' : 'Capture Desk'));
}

/**
 * Moves every system path the script writes under `root`. Then checks that no other absolute
 * path is left, so the script cannot touch this machine.
 */
function reroot(text: string, root: string): string {
  const out = text.replace(/(['"\s])\/(usr\/bin\/capture-desk|etc\/|opt\/|usr\/share\/)/g, (_, pre: string, rest: string) => `${pre}${root}/${rest}`);
  const allowed = ['/dev/null', '/proc/self/ns/user', '/usr/bin/ischroot'];
  const code = out.split('\n').filter((l) => !/^\s*#/.test(l)).join('\n');
  const stray = [...code.matchAll(/(['"\s])(\/[A-Za-z][^'"\s;]*)/g)].map((m) => String(m[2])).filter((p) => !p.startsWith(root + '/') && !allowed.includes(p));
  expect(stray, 'absolute paths left outside the temp root').toEqual([]);
  return out;
}

describe('the installed `capture-desk` command (offline linux dir build, Node as the Electron binary)', () => {
  let build: LinuxDirBuild;
  let root = ''; // stands for /
  let appDir = ''; // <root>/opt/Capture Desk
  let launcher = ''; // <root>/opt/Capture Desk/resources/bin/capture-desk
  let usrBin = ''; // <root>/usr/bin/capture-desk, made by after-install.sh
  let stubs = '';
  let stubLog = '';
  let installRun: { code: number | null; output: string } = { code: null, output: '' };

  const scriptEnv = () => userEnv({ PATH: `${stubs}:${process.env.PATH ?? '/usr/bin:/bin'}`, STUB_LOG: stubLog });

  beforeAll(async () => {
    build = await buildLinuxDir({ electron: 'node', prefix: 'cd-cli-' });
    root = join(build.work, 'root');
    appDir = join(root, 'opt', 'Capture Desk');
    mkdirSync(join(root, 'opt'), { recursive: true });
    renameSync(build.unpacked, appDir);
    launcher = join(appDir, 'resources/bin/capture-desk');
    usrBin = join(root, 'usr/bin/capture-desk');

    const asar = join(appDir, 'resources/app.asar');
    const extracted = join(build.work, 'app-extracted');
    extractAll(asar, extracted);
    rmSync(asar);
    renameSync(extracted, asar);

    // Commands the maintainer scripts call that would change this machine: recorded, not run.
    // update-alternatives is the real one, pointed at the temp root's databases.
    stubs = join(build.work, 'stubs');
    stubLog = join(build.work, 'stubs.log');
    mkdirSync(stubs);
    const stub = (name: string, body: string) => {
      writeFileSync(join(stubs, name), `#!/bin/sh\necho "${name} $*" >> "$STUB_LOG"\n${body}\n`);
      chmodSync(join(stubs, name), 0o755);
    };
    for (const name of ['udevadm', 'update-mime-database', 'update-desktop-database', 'apparmor_parser']) stub(name, 'exit 0');
    stub('apparmor_status', 'exit 1'); // AppArmor off: the profile branch is electron-builder's, not ours
    stub('unshare', 'exit 0'); // user namespaces work: chrome-sandbox gets 0755 (absent in the stand-in build)
    for (const dir of ['usr/bin', 'etc/alternatives', 'var/lib/dpkg/alternatives', 'var/log']) mkdirSync(join(root, dir), { recursive: true });
    if (existsSync('/usr/bin/update-alternatives')) {
      stub('update-alternatives', `exec /usr/bin/update-alternatives --altdir '${root}/etc/alternatives' --admindir '${root}/var/lib/dpkg/alternatives' --log '${root}/var/log/alternatives.log' "$@"`);
    }
    writeFileSync(join(build.work, 'after-install.sh'), reroot(render('resources/linux/after-install.sh'), root));
    installRun = await run('bash', [join(build.work, 'after-install.sh'), 'configure'], { env: scriptEnv(), timeoutMs: 30_000 });
  }, 240_000);

  afterAll(() => build?.dispose());

  it('ships the launcher with its exec bit, and after-install links /usr/bin/capture-desk to it', () => {
    expect(readFileSync(launcher, 'utf8')).toBe(readFileSync(join(ROOT, 'resources/bin/capture-desk'), 'utf8'));
    expect(statSync(launcher).mode & 0o111, 'exec bits of resources/bin/capture-desk').toBe(0o111);
    expect(existsSync(join(appDir, 'capture-desk')), 'the GUI binary, linux.executableName').toBe(true);

    expect(installRun.code, installRun.output).toBe(0);
    expect(lstatSync(usrBin).isSymbolicLink()).toBe(true);
    expect(realpathSync(usrBin)).toBe(launcher);
    if (existsSync('/usr/bin/update-alternatives')) {
      // Debian's way: /usr/bin/capture-desk -> /etc/alternatives/capture-desk -> the launcher.
      expect(readlinkSync(usrBin)).toBe(join(root, 'etc/alternatives/capture-desk'));
      expect(readlinkSync(join(root, 'etc/alternatives/capture-desk'))).toBe(launcher);
    }
    // The udev part of the same script.
    expect(readFileSync(join(root, 'etc/udev/rules.d/99-capture-desk.rules'), 'utf8')).toBe(readFileSync(join(ROOT, 'resources/linux/99-capture-desk.rules'), 'utf8'));
    expect(readFileSync(stubLog, 'utf8')).toContain('udevadm control --reload-rules');
  });

  it('`capture-desk --help` through /usr/bin (two symlinks, a space in the path) lists the commands', async () => {
    const res = await exec(usrBin, ['--help'], { env: userEnv() });
    expect(res.code, res.stderr).toBe(0);
    for (const command of CLI_COMMANDS) expect(res.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const version = await exec(usrBin, ['--version'], { env: userEnv() });
    expect(version.stdout.trim()).toBe(`capture-desk ${pkg.version}`);
    // A relative symlink, started by a relative path from its own folder, resolves as well.
    const home = join(build.work, 'my bin');
    mkdirSync(home);
    symlinkSync(relative(home, launcher), join(home, 'capture-desk'));
    const rel = await exec('./capture-desk', ['--help'], { env: userEnv(), cwd: home });
    expect(rel.code, rel.stderr).toBe(0);
    expect(rel.stdout).toContain('Usage: capture-desk <command>');
  });

  it('`capture-desk samples import` then `samples list --json` work from the packaged app', async () => {
    const data = join(build.work, 'data dir');
    const csv = join(build.work, 'my captures', 'knock.3.csv');
    mkdirSync(join(build.work, 'my captures'));
    writeFileSync(csv, 'timestamp,accX (m/s2),accY (m/s2)\n0,1.5,2\n10,1.25,-3\n20,0,4.5\n');
    const imp = await exec(usrBin, ['samples', 'import', csv, '--data-dir', data], { env: userEnv() });
    expect(imp.code, imp.stderr).toBe(0);

    const list = await exec(usrBin, ['samples', 'list', '--json', '--data-dir', data], { env: userEnv() });
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ name: 'knock.3.cbor', label: 'knock', kind: 'sensor', state: 'local', length_ms: 30 });
    expect(String(lines[0]?.file).startsWith(data + '/')).toBe(true);
    expect(existsSync(String(lines[0]?.file))).toBe(true);
  });

  it('runs the CLI on the app binary with ELECTRON_RUN_AS_NODE=1, loading the packaged native modules', async () => {
    // Negative control: the stand-in binary refuses to run without the variable, as the checks
    // above rely on.
    const bare = await exec(join(appDir, 'capture-desk'), ['--version'], { env: userEnv() });
    expect(bare.code).toBe(3);
    expect(bare.stderr).toContain('only ELECTRON_RUN_AS_NODE=1 is supported');

    // `serve` stays up long enough to look at the process. The launcher and the stand-in both
    // exec, so the spawned pid is the process running the CLI.
    const child = spawn(usrBin, ['serve', '--port', '0', '--data-dir', join(build.work, 'serve data')], { env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
        });
        void exited.then((code) => reject(new Error(`serve exited with ${code}:\n${tail(stderr)}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      const pid = String(child.pid);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain('ELECTRON_RUN_AS_NODE=1');
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toContain(join(appDir, 'resources/app.asar/dist/cli/capture-desk.js'));
      const mapped = [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').map((l) => l.split(/\s+/).slice(5).join(' ')).filter((f) => f.endsWith('.node')))];
      const packaged = mapped.filter((f) => f.startsWith(join(appDir, 'resources/app.asar/node_modules') + '/'));
      expect(packaged.length, `native modules mapped by the CLI:\n${mapped.join('\n')}`).toBeGreaterThan(0);
      expect(mapped.filter((f) => f.startsWith(join(ROOT, 'node_modules')))).toEqual([]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('no command starts the GUI binary as itself: never as Node, even with ELECTRON_RUN_AS_NODE inherited', async () => {
    // The stand-in refuses anything but Node mode, so reaching it without the variable is the proof.
    for (const args of [[], ['--no-sandbox'], ['--ozone-platform=wayland', 'samples']]) {
      const res = await exec(usrBin, args, { env: userEnv({ ELECTRON_RUN_AS_NODE: '1' }) });
      expect(res.code, `capture-desk ${args.join(' ')}`).toBe(3);
      expect(res.stderr).toContain('only ELECTRON_RUN_AS_NODE=1 is supported');
    }
    // A typo is the CLI's to report, not a reason to open a window.
    const typo = await exec(usrBin, ['sampels'], { env: userEnv() });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown command "sampels"');
  });

  it('says what is wrong when the app next to it is gone', async () => {
    const lone = join(build.work, 'lone', 'resources', 'bin');
    mkdirSync(lone, { recursive: true });
    writeFileSync(join(lone, 'capture-desk'), readFileSync(launcher));
    chmodSync(join(lone, 'capture-desk'), 0o755);
    const res = await exec(join(lone, 'capture-desk'), ['--help'], { env: userEnv() });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`missing or not executable at ${join(build.work, 'lone', 'capture-desk')}`);
    expect(res.stderr).toContain('reinstall Capture Desk');
  });

  it('the packaged main.js hands `<app> --no-sandbox samples list` to the CLI, as the AppImage gets it', async () => {
    // main.js imports 'electron', which only exists inside Electron. A stand-in exporting exactly the
    // names the bundle imports, each one throwing when touched: the passthrough must run the CLI
    // and exit before the app uses any of them.
    const main = join(appDir, 'resources/app.asar/dist/electron/main.js');
    const names = new Set<string>();
    for (const m of readFileSync(main, 'utf8').matchAll(/import\s*\{([^}]*)\}\s*from\s*["']electron["']/g)) {
      for (const spec of String(m[1]).split(',')) if (spec.trim()) names.add(spec.trim().split(/\s+as\s+/)[0] ?? '');
    }
    expect(names.has('app')).toBe(true);
    const stand = join(appDir, 'resources/app.asar/node_modules/electron');
    mkdirSync(stand);
    writeFileSync(join(stand, 'package.json'), JSON.stringify({ name: 'electron', type: 'module', exports: './index.js' }));
    writeFileSync(
      join(stand, 'index.js'),
      `const touched = (name) => new Proxy(function () {}, { get(_, key) { throw new Error('electron stand-in: ' + name + '.' + String(key) + ' used'); }, construct() { throw new Error('electron stand-in: new ' + name); }, apply() { throw new Error('electron stand-in: ' + name + '()'); } });\n` +
        [...names].map((n) => `export const ${n} = touched('${n}');`).join('\n') +
        '\n',
    );
    try {
      const data = join(build.work, 'data dir');
      const res = await exec(process.execPath, [main, '--no-sandbox', 'samples', 'list', '--json', '--data-dir', data], { env: userEnv() });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('"name":"knock.3.cbor"');
      // Negative control: without a CLI command the app starts, and the stand-in says so.
      const gui = await exec(process.execPath, [main, '--no-sandbox'], { env: userEnv() });
      expect(gui.code).not.toBe(0);
      expect(gui.stderr).toMatch(/electron stand-in: app\.\w+ used/);
    } finally {
      rmSync(stand, { recursive: true, force: true });
    }
  });

  it('after-remove removes the /usr/bin link and the udev rule', async () => {
    writeFileSync(join(build.work, 'after-remove.sh'), reroot(render('resources/linux/after-remove.sh'), root));
    const res = await run('bash', [join(build.work, 'after-remove.sh'), 'remove'], { env: scriptEnv(), timeoutMs: 30_000 });
    expect(res.code, res.output).toBe(0);
    expect(existsSync(usrBin) || (() => { try { return lstatSync(usrBin).isSymbolicLink(); } catch { return false; } })()).toBe(false);
    expect(existsSync(join(root, 'etc/udev/rules.d/99-capture-desk.rules'))).toBe(false);
  });
});
