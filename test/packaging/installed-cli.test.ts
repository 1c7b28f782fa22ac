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
import { writeFile } from 'node:fs/promises';
import { chmodSync, closeSync, constants as fsConstants, existsSync, openSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, win32 } from 'node:path';
import { extractAll } from '@electron/asar';
import { CLI_COMMANDS, CLI_HELP_ARGS, CLI_VERSION_ARGS } from '../../src-main/cli/commands.js';
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

    // `samples import` of a FIFO: the CLI opens the sample store (SQLite's native module) and then
    // waits for the CSV, long enough to look at the process. The launcher and the stand-in both
    // exec, so the spawned pid is the process running the CLI.
    const fifo = join(build.work, 'slow.1.csv');
    expect((await run('mkfifo', [fifo])).code).toBe(0);
    const child = spawn(usrBin, ['samples', 'import', fifo, '--data-dir', join(build.work, 'fifo data')], { env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pid = String(child.pid);
    const nativeMapped = () =>
      [...new Set(readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').map((l) => l.split(/\s+/).slice(5).join(' ')).filter((f) => f.endsWith('.node')))];
    try {
      const packagedModules = join(appDir, 'resources/app.asar/node_modules') + '/';
      let mapped: string[] = [];
      for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        if (child.exitCode !== null) throw new Error(`the CLI ended early (${child.exitCode}):\n${tail(output)}`);
        mapped = nativeMapped();
        if (mapped.some((f) => f.startsWith(packagedModules))) break;
      }
      expect(mapped.filter((f) => f.startsWith(packagedModules)).length, `native modules mapped by the CLI:\n${mapped.join('\n')}`).toBeGreaterThan(0);
      expect(mapped.filter((f) => f.startsWith(join(ROOT, 'node_modules')))).toEqual([]);
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('ELECTRON_RUN_AS_NODE=1');
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(join(appDir, 'resources/app.asar/dist/cli/capture-desk.js'));
      // Asynchronously: opening a FIFO for writing waits for its reader, and a CLI that died
      // instead of reading it must fail this test, not block the test process for ever.
      const written = writeFile(fifo, 'timestamp,accX\n0,1\n10,2\n');
      const code = await exited;
      if (code !== 0) {
        // Be the reader it never had, so the pending write ends instead of holding a thread.
        closeSync(openSync(fifo, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK));
        await written.catch(() => undefined);
        throw new Error(`the CLI ended (${code}) without importing the FIFO:\n${tail(output)}`);
      }
      await written;
      expect(code, output).toBe(0);
      expect(output).toContain('"name":"slow.1.cbor"');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  }, 60_000);

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
      const data = join(build.work, 'appimage data');
      const csv = join(build.work, 'idle.7.csv');
      writeFileSync(csv, 'timestamp,accX\n0,1\n10,2\n');
      const imp = await exec(process.execPath, [main, '--no-sandbox', 'samples', 'import', csv, '--data-dir', data], { env: userEnv() });
      expect(imp.code, imp.stderr).toBe(0);
      const res = await exec(process.execPath, [main, '--no-sandbox', 'samples', 'list', '--json', '--data-dir', data], { env: userEnv() });
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ name: 'idle.7.cbor', label: 'idle', state: 'local' });
      // Negative control: without a CLI command the app starts, and the stand-in says so.
      const gui = await exec(process.execPath, [main, '--no-sandbox'], { env: userEnv() });
      expect(gui.code).not.toBe(0);
      expect(gui.stderr).toMatch(/electron stand-in: app\.\w+ used/);
    } finally {
      rmSync(stand, { recursive: true, force: true });
    }
  });

  it('finds the binary in a macOS bundle (Contents/MacOS) through a /usr/local/bin symlink', async () => {
    // The same script on macOS: uname says Darwin, the binary is Contents/MacOS/<productName>.
    const contents = join(build.work, 'Applications', 'Capture Desk.app', 'Contents');
    mkdirSync(join(contents, 'MacOS'), { recursive: true });
    mkdirSync(join(contents, 'Resources', 'bin'), { recursive: true });
    writeFileSync(join(contents, 'MacOS', 'Capture Desk'), readFileSync(join(appDir, 'capture-desk')));
    chmodSync(join(contents, 'MacOS', 'Capture Desk'), 0o755);
    writeFileSync(join(contents, 'Resources', 'bin', 'capture-desk'), readFileSync(launcher));
    chmodSync(join(contents, 'Resources', 'bin', 'capture-desk'), 0o755);
    symlinkSync(join(appDir, 'resources', 'app.asar'), join(contents, 'Resources', 'app.asar'));
    const fakeBin = join(build.work, 'darwin-tools');
    mkdirSync(fakeBin);
    writeFileSync(join(fakeBin, 'uname'), '#!/bin/sh\necho Darwin\n');
    chmodSync(join(fakeBin, 'uname'), 0o755);
    const local = join(build.work, 'usr-local-bin');
    mkdirSync(local);
    symlinkSync(join(contents, 'Resources', 'bin', 'capture-desk'), join(local, 'capture-desk'));
    const res = await exec(join(local, 'capture-desk'), ['--version'], { env: userEnv({ PATH: `${fakeBin}:${process.env.PATH ?? ''}` }) });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(`capture-desk ${pkg.version}`);
  });

  it('after-remove removes the /usr/bin link and the udev rule', async () => {
    writeFileSync(join(build.work, 'after-remove.sh'), reroot(render('resources/linux/after-remove.sh'), root));
    const res = await run('bash', [join(build.work, 'after-remove.sh'), 'remove'], { env: scriptEnv(), timeoutMs: 30_000 });
    expect(res.code, res.output).toBe(0);
    expect(existsSync(usrBin) || (() => { try { return lstatSync(usrBin).isSymbolicLink(); } catch { return false; } })()).toBe(false);
    expect(existsSync(join(root, 'etc/udev/rules.d/99-capture-desk.rules'))).toBe(false);
  });
});

describe('capture-desk.cmd (cmd.exe cannot run here, so its text is checked)', () => {
  const text = readFileSync(join(ROOT, 'resources/bin/capture-desk.cmd'), 'utf8');
  const lines = text.split('\r\n');
  const code = lines.filter((l) => !/^(rem |@echo off|$)/i.test(l));

  it('has CRLF line endings (cmd.exe misreads labels in LF-only files)', () => {
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('finds the app and the CLI from its own folder, as the NSIS install lays them out', () => {
    const exe = /^set "CAPTURE_DESK_EXE=%~dp0(.+)"$/m.exec(text)?.[1];
    const cli = /^set "CAPTURE_DESK_CLI=%~dp0(.+)"$/m.exec(text)?.[1];
    // %~dp0 is the .cmd's folder with a trailing backslash, e.g. under "Program Files (x86)".
    const install = 'C:\\Program Files (x86)\\Capture Desk';
    const here = `${install}\\resources\\bin\\`;
    // electron-builder names the Windows executable <productName>.exe.
    expect(win32.resolve(here + exe)).toBe(win32.join(install, 'Capture Desk.exe'));
    const bin = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['capture-desk'];
    expect(win32.resolve(here + cli)).toBe(win32.join(install, 'resources', 'app.asar', ...String(bin).split('/')));
  });

  it('quotes every path it expands and has no parenthesised block a path could break', () => {
    for (const line of code) {
      for (const m of line.matchAll(/%~dp0|%CAPTURE_DESK_(EXE|CLI)%/g)) {
        const quotesBefore = (line.slice(0, m.index).match(/"/g) ?? []).length;
        expect(quotesBefore % 2, `unquoted ${m[0]} in: ${line}`).toBe(1);
      }
      expect(line, 'a ( ) block breaks when a path with "(x86)" is expanded inside it').not.toMatch(/[()]/);
    }
  });

  it('runs the CLI with ELECTRON_RUN_AS_NODE=1 and all arguments, passes the exit code on, starts the GUI without it', () => {
    expect(code[0]).toBe('setlocal'); // nothing it sets outlives the call
    const at = (l: string) => code.indexOf(l);
    expect(at(':cli')).toBeGreaterThan(-1);
    expect(code.slice(at(':cli'), at(':cli') + 4)).toEqual([':cli', 'set ELECTRON_RUN_AS_NODE=1', '"%CAPTURE_DESK_EXE%" "%CAPTURE_DESK_CLI%" %*', 'exit /b %ERRORLEVEL%']);
    expect(code.slice(at(':gui'), at(':gui') + 4)).toEqual([':gui', 'set ELECTRON_RUN_AS_NODE=', 'start "" "%CAPTURE_DESK_EXE%" %*', 'exit /b 0']);
  });

  it('decides CLI or GUI by the same rule as the POSIX launcher and the CLI', () => {
    const cmdFlags = [...text.matchAll(/^if "%~1"=="(-[^"]*)" goto cli$/gm)].map((m) => m[1]).sort();
    const sh = readFileSync(join(ROOT, 'resources/bin/capture-desk'), 'utf8');
    const shFlags = (/^\s*(-h \|[^)]*)\) mode=cli/m.exec(sh)?.[1] ?? '').split('|').map((f) => f.trim()).sort();
    const cliFlags = [...CLI_HELP_ARGS, ...CLI_VERSION_ARGS].filter((a) => a.startsWith('-')).sort();
    expect(cmdFlags).toEqual(cliFlags);
    expect(shFlags).toEqual(cliFlags);
    expect(text).toMatch(/^if "%~1"=="" goto gui$/m);
    expect(text).toMatch(/^if "%CAPTURE_DESK_FIRST:~0,1%"=="-" goto gui$/m);
  });
});
