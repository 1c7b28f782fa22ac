// Packaging checks: electron-builder.yml against electron-builder's own schema, the resources it
// points at, and the Linux udev rule (the built app itself: packaging-build.test.ts).
//
// Needs the app's build output: run `npm run build` first (npm test does).
// The Electron binary cannot be downloaded here, so the build uses a stand-in Electron directory
// (electronDist); everything else is electron-builder's real code path, with no network.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultModelWorkerPath } from '../../src-main/core/model/model-runner.js';
import { extractAll, extractFile, listPackage, statFile } from '@electron/asar';
import { build as esbuild } from 'esbuild';
import { checkPng, matchValue, parseUdevRules, run, tail, type UdevRule } from './helpers.js';
import { buildLinuxDir, type LinuxDirBuild } from './linux-dir.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
// app-builder-lib is electron-builder's engine; resolve it the way electron-builder does.
const requireFromBuilder = createRequire(require.resolve('electron-builder/package.json'));

// Minimal types for the parts of app-builder-lib / builder-util used here.
type Config = Record<string, unknown>;
interface ConfigModule {
  validateConfiguration(config: Config, debugLogger: unknown): Promise<void>;
}
interface LoadModule {
  getConfig(request: {
    packageKey: string;
    configFilename: string;
    projectDir: string;
    packageMetadata: null;
  }): Promise<{ result: Config; configFile: string | null } | null>;
}
interface IconModule {
  convertIcon(options: { sources: string[]; fallbackSources: string[]; roots: string[]; format: 'set'; outDir: string }): Promise<{
    icons: { file: string; size: number }[];
    isFallback: boolean;
  }>;
}
interface BuilderUtil {
  DebugLogger: new (isEnabled?: boolean) => unknown;
}
const { validateConfiguration } = requireFromBuilder('app-builder-lib/out/util/config/config') as ConfigModule;
const load = requireFromBuilder('app-builder-lib/out/util/config/load') as LoadModule;
const { convertIcon } = requireFromBuilder('app-builder-lib/out/util/iconConverter') as IconModule;
const { DebugLogger } = requireFromBuilder('builder-util') as BuilderUtil;
// The glob matcher electron-builder applies `files` patterns with (options as in its fileMatcher).
const { minimatch } = createRequire(requireFromBuilder.resolve('app-builder-lib/package.json'))('minimatch') as {
  minimatch: (path: string, pattern: string, options: { dot: boolean }) => boolean;
};

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  productName?: string;
  main: string;
  type?: string;
  build?: unknown;
  dependencies: Record<string, string>;
};

const RULE_NAME = '99-capture-desk.rules';
const RULE_SOURCE = join(ROOT, 'resources/linux', RULE_NAME);
// USB vendor ids the udev rule must cover (see resources/linux/README.md).
const VENDORS: Record<string, string> = {
  '0403': 'FTDI',
  '10c4': 'Silicon Labs CP210x (also Sony Spresense)',
  '1a86': 'WCH CH340/CH9102',
  '067b': 'Prolific PL2303',
  '2341': 'Arduino',
  '2a03': 'Arduino SRL',
  '239a': 'Adafruit',
  '303a': 'Espressif',
  '0483': 'STMicroelectronics',
  '1915': 'Nordic',
  '1366': 'SEGGER',
  '2e8a': 'Raspberry Pi',
  '16c0': 'Teensy',
  '2886': 'Seeed',
  '03eb': 'Microchip/Atmel',
  '04d8': 'Microchip',
  '1fc9': 'NXP',
  '0d28': 'NXP/ARM DAPLink',
  '1b4f': 'SparkFun',
};

async function loadConfig(): Promise<{ config: Config; configFile: string | null }> {
  const loaded = await load.getConfig({ packageKey: 'build', configFilename: 'electron-builder', projectDir: ROOT, packageMetadata: null });
  if (loaded == null) throw new Error('electron-builder found no configuration');
  return { config: loaded.result, configFile: loaded.configFile };
}
const validate = (config: Config) => validateConfiguration(structuredClone(config), new DebugLogger(false));

function section(config: Config, key: string): Record<string, unknown> {
  const value = config[key];
  expect(value, `electron-builder.yml: ${key}`).toBeTypeOf('object');
  return value as Record<string, unknown>;
}

describe('electron-builder.yml', () => {
  it('is the configuration electron-builder loads', async () => {
    // A "build" field in package.json would silently win over electron-builder.yml.
    expect(pkg.build, 'package.json must not have a "build" field: electron-builder would ignore electron-builder.yml').toBeUndefined();
    const { configFile } = await loadConfig();
    expect(configFile).toBe(join(ROOT, 'electron-builder.yml'));
  });

  it("passes electron-builder's schema validation, which rejects mistakes", async () => {
    const { config } = await loadConfig();
    await expect(validate(config)).resolves.toBeUndefined();
    // The validation really runs: unknown keys, misplaced keys and wrong types all fail.
    await expect(validate({ ...config, notAnOption: true })).rejects.toThrow(/notAnOption/);
    await expect(validate({ ...config, nsis: { ...section(config, 'nsis'), oneClik: false } })).rejects.toThrow(/configuration\.nsis/);
    await expect(validate({ ...config, asar: 'yes' })).rejects.toThrow(/configuration\.asar/);
  });

  it('has the settings the app relies on', async () => {
    const { config } = await loadConfig();
    expect(config.appId).toBe('dev.capturedesk.app');
    expect(config.productName).toBe('Capture Desk');
    // Electron names the userData folder after package.json's productName; keep both in step.
    expect(pkg.productName, 'package.json needs "productName": "Capture Desk"').toBe(config.productName);
    expect(config.directories).toEqual({ output: 'release', buildResources: 'resources' });
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(false);
    expect(config.asarUnpack).toContain('**/*.node');
    expect(config.extraMetadata).toBeUndefined();

    // A platform's `files` replaces the top-level list for the app's own files: each must keep
    // the build output, package.json and the manual with its pictures, and drop source maps.
    for (const key of [null, 'linux', 'win', 'mac']) {
      const files = (key == null ? config.files : section(config, key).files) as unknown;
      if (files === undefined) continue;
      expect(files, `${key ?? 'top-level'} files`).toEqual(expect.arrayContaining(['dist/**/*', '!dist/**/*.map', 'package.json', 'resources/manual/*.md', 'resources/readme/*.png']));
    }

    const linux = section(config, 'linux');
    expect(linux.target).toEqual(['AppImage', 'deb']);
    expect(linux.category).toBe('Development');
    const deb = section(config, 'deb');
    expect(deb.depends).toEqual(expect.arrayContaining(['libsecret-1-0', 'libasound2', 'libnss3', 'libgtk-3-0']));
    expect(deb.afterInstall).toBe('resources/linux/after-install.sh');

    expect(section(config, 'win').target).toBe('nsis');
    expect(section(config, 'nsis')).toMatchObject({ oneClick: false, allowToChangeInstallationDirectory: true });

    const mac = section(config, 'mac');
    expect(mac).toMatchObject({
      target: 'dmg',
      category: 'public.app-category.developer-tools',
      hardenedRuntime: true,
      entitlements: 'resources/mac/entitlements.mac.plist',
      entitlementsInherit: 'resources/mac/entitlements.mac.plist',
    });
    expect((mac.extendInfo as Record<string, string>).NSMicrophoneUsageDescription).toMatch(/microphone/i);
  });

  it("each OS keeps only its own prebuilt serialport and node-web-audio-api binaries", async () => {
    const { config } = await loadConfig();
    const nodeDir = { linux: 'linux', win: 'win32', mac: 'darwin' } as const;
    const prebuilt = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.node'))
        .map((f) => posix.join(dir, f.split('\\').join('/')));
    const binaries = [...prebuilt('node_modules/node-web-audio-api'), ...prebuilt('node_modules/@serialport/bindings-cpp/prebuilds')];
    for (const [os, nodePlatform] of Object.entries(nodeDir)) {
      const excludes = [...((config.files as string[] | undefined) ?? []), ...((section(config, os).files as string[] | undefined) ?? [])]
        .filter((p) => p.startsWith('!'))
        .map((p) => p.slice(1));
      const kept = binaries.filter((file) => !excludes.some((pattern) => minimatch(file, pattern, { dot: true })));
      for (const pkgDir of ['node_modules/node-web-audio-api/', 'node_modules/@serialport/bindings-cpp/']) {
        const ours = kept.filter((f) => f.startsWith(pkgDir));
        expect(ours.length, `${os}: ${pkgDir} keeps a binary`).toBeGreaterThan(0);
        expect(ours.filter((f) => !f.includes(nodePlatform)), `${os}: ${pkgDir} keeps other OSes' binaries`).toEqual([]);
      }
    }
  });

  it('points at resource files that exist and are well-formed', async () => {
    const { config } = await loadConfig();
    const linux = section(config, 'linux');
    const deb = section(config, 'deb');
    const mac = section(config, 'mac');
    for (const file of [deb.afterInstall, deb.afterRemove, mac.entitlements, mac.entitlementsInherit, linux.icon]) {
      expect(existsSync(join(ROOT, String(file))), String(file)).toBe(true);
    }
    for (const os of ['linux', 'win', 'mac']) {
      for (const { from } of (section(config, os).extraResources ?? []) as { from: string }[]) expect(existsSync(join(ROOT, from)), `${os}: ${from}`).toBe(true);
    }
    // The `capture-desk` launcher on every OS (test/packaging/installed-cli.test.ts runs it).
    const launcherOf = (os: string) => (section(config, os).extraResources as { from: string; to: string }[]).find((r) => r.to.startsWith('bin/'));
    expect([launcherOf('linux'), launcherOf('mac'), launcherOf('win')]).toEqual([
      { from: 'resources/bin/capture-desk', to: 'bin/capture-desk' },
      { from: 'resources/bin/capture-desk', to: 'bin/capture-desk' },
      { from: 'resources/bin/capture-desk.cmd', to: 'bin/capture-desk.cmd' },
    ]);
    // It runs the CLI with ELECTRON_RUN_AS_NODE=1, which Electron's RunAsNode fuse can switch off.
    expect((config.electronFuses as Record<string, unknown> | undefined)?.runAsNode, 'electronFuses.runAsNode must stay on').not.toBe(false);

    // resources/icon.png: the default icon electron-builder converts for Windows and macOS.
    expect(checkPng(readFileSync(join(ROOT, 'resources/icon.png')))).toMatchObject({ width: 512, height: 512 });
    // resources/icons/<n>x<n>.png for Linux; electron-builder reads the size from the file name.
    const iconDir = join(ROOT, String(linux.icon));
    const sizes = readdirSync(iconDir).map((name) => {
      const m = /^(\d+)x(\d+)\.png$/.exec(name);
      expect(m, `unexpected file ${name} in ${linux.icon}`).not.toBeNull();
      const png = checkPng(readFileSync(join(iconDir, name)));
      expect([png.width, png.height], name).toEqual([Number(m?.[1]), Number(m?.[2])]);
      return png.width;
    });
    expect(sizes.sort((a, b) => a - b)).toEqual([16, 24, 32, 48, 64, 128, 256, 512]);
    // electron-builder's own lookup (LinuxTargetHelper.computeDesktopIcons → resolveIcon) finds the set.
    const outDir = mkdtempSync(join(tmpdir(), 'cd-icons-'));
    try {
      const resolved = await convertIcon({
        sources: [String(linux.icon)],
        fallbackSources: [],
        roots: [join(ROOT, 'resources'), ROOT],
        format: 'set',
        outDir,
      });
      expect(resolved.isFallback).toBe(false);
      expect(resolved.icons.map((i) => [relative(ROOT, i.file), i.size])).toEqual(sizes.map((n) => [`resources/icons/${n}x${n}.png`, n]));
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }

    const plist = readFileSync(join(ROOT, String(mac.entitlements)), 'utf8');
    expect(plist).toMatch(/^<\?xml[^>]*\?>\s*<!DOCTYPE plist/);
    for (const key of [
      'com.apple.security.cs.allow-jit',
      'com.apple.security.device.audio-input',
      'com.apple.security.device.usb',
      'com.apple.security.device.serial',
    ]) {
      expect(plist, key).toMatch(new RegExp(`<key>${key.replace(/\./g, '\\.')}</key>\\s*<true/>`));
    }
    // Every <key> pairs with a value and tags balance (a cheap well-formedness check).
    const body = plist.replace(/<!--[\s\S]*?-->/g, '');
    expect(body.match(/<key>/g)?.length).toBe(body.match(/<\/key>\s*<(true|false)\/>/g)?.length);
    expect(body.match(/<dict>/g)?.length).toBe(body.match(/<\/dict>/g)?.length);
  });

  it('deb scripts render the way electron-builder renders them and are valid bash', async () => {
    const { config } = await loadConfig();
    const deb = section(config, 'deb');
    const linux = section(config, 'linux');
    const ruleTarget = (linux.extraResources as { from: string; to: string }[]).find((r) => r.from.endsWith(RULE_NAME))?.to;
    expect(ruleTarget).toBe(`udev/${RULE_NAME}`);
    for (const script of [String(deb.afterInstall), String(deb.afterRemove)]) {
      const text = readFileSync(join(ROOT, script), 'utf8');
      // electron-builder (FpmTarget writeConfigFile) replaces ${name} macros and fails on unknown ones.
      const macros = new Set([...text.matchAll(/\$\{([a-zA-Z]+)\}/g)].map((m) => m[1]));
      expect([...macros].filter((m) => !['executable', 'sanitizedProductName', 'productFilename'].includes(String(m))), script).toEqual([]);
      const rendered = text.replace(/\$\{([a-zA-Z]+)\}/g, (_, name: string) =>
        name === 'executable' ? 'capture-desk' : 'Capture Desk',
      );
      const dir = mkdtempSync(join(tmpdir(), 'cd-script-'));
      try {
        writeFileSync(join(dir, 'script.sh'), rendered);
        const check = await run('bash', ['-n', join(dir, 'script.sh')]);
        expect(check.code, `${script}: bash -n\n${check.output}`).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      // It keeps electron-builder's default duties (the /usr/bin link, chrome-sandbox mode).
      expect(text, script).toContain("'/usr/bin/${executable}'");
      // udevadm may be missing (containers): never let it fail the package operation.
      for (const line of text.split('\n').filter((l) => /^\s*udevadm /.test(l))) expect(line, script).toMatch(/\|\| true\s*$/);
    }
    const install = readFileSync(join(ROOT, String(deb.afterInstall)), 'utf8');
    expect(install).toContain(`'/opt/\${sanitizedProductName}/resources/${ruleTarget}'`);
    expect(install).toContain(`/etc/udev/rules.d/${RULE_NAME}`);
    expect(install).toMatch(/udevadm control --reload-rules/);
  });
});

describe(`udev rule ${RULE_NAME}`, () => {
  const text = readFileSync(RULE_SOURCE, 'utf8');

  it('is valid udev syntax, line by line', () => {
    const { rules, errors } = parseUdevRules(text);
    expect(errors).toEqual([]);
    expect(rules.length).toBeGreaterThanOrEqual(2 * Object.keys(VENDORS).length);
    // The checker does reject broken rules.
    const broken = [
      'SUBSYSTEM=="tty", ATTRS{idVendor}=="0403, GROUP="dialout"', // unbalanced quotes
      'SUBSYSTEM=="tty" ATTRS{idVendor}=="0403", MODE="0660"', // missing comma
      'SUBSYSTEM=="tty", GROUP=="dialout"', // comparing an assign-only key
      'SUBSYSTEM="tty", MODE="0660"', // assigning a match-only key
      'SUBSYSTEM=="tty", ATTRS=="0403", MODE="0660"', // ATTRS without {attribute}
      'SUBSYTEM=="tty", MODE="0660"', // unknown key
      'SUBSYSTEM=="tty"', // assigns nothing
    ];
    for (const line of broken) expect(parseUdevRules(line).errors, line).not.toEqual([]);
  });

  it('gives dialout (tty) and plugdev (usb) access with MODE 0660 for every vendor', () => {
    const { rules } = parseUdevRules(text);
    const lines = text.split('\n');
    const assigns = (rule: UdevRule, key: string, op: string, value: string) =>
      rule.pairs.some((p) => p.key === key && p.op === op && p.value === value);
    for (const [vid, vendor] of Object.entries(VENDORS)) {
      const tty = rules.filter((r) => matchValue(r, 'SUBSYSTEM') === 'tty' && matchValue(r, 'ATTRS{idVendor}') === vid);
      const usb = rules.filter((r) => matchValue(r, 'SUBSYSTEM') === 'usb' && matchValue(r, 'ATTR{idVendor}') === vid);
      expect(tty.length, `${vendor} (${vid}): SUBSYSTEM=="tty" rule`).toBeGreaterThan(0);
      expect(usb.length, `${vendor} (${vid}): SUBSYSTEM=="usb" rule`).toBeGreaterThan(0);
      for (const rule of tty) expect(assigns(rule, 'GROUP', '=', 'dialout'), `${vendor} tty GROUP`).toBe(true);
      for (const rule of usb) expect(assigns(rule, 'GROUP', '=', 'plugdev'), `${vendor} usb GROUP`).toBe(true);
      for (const rule of [...tty, ...usb]) {
        expect(assigns(rule, 'MODE', '=', '0660'), `${vendor} line ${rule.line} MODE`).toBe(true);
      }
      // Each vendor's block starts with a comment naming it.
      const first = Math.min(...[...tty, ...usb].map((r) => r.line));
      expect(lines[first - 2] ?? '', `comment above line ${first} (${vendor})`).toMatch(/^#\s*\S/);
    }
    // Product-restricted vendors still cover the common chips.
    const pidsOf = (vid: string) => rules.flatMap((r) => (matchValue(r, 'ATTRS{idVendor}') === vid ? [matchValue(r, 'ATTRS{idProduct}') ?? '*'] : []));
    expect(pidsOf('10c4').join('|')).toContain('ea60');
    expect(pidsOf('067b').join('|')).toContain('2303');
    // A uaccess tag in a file ordered after systemd's 73-seat-late.rules would silently do nothing.
    expect(rules.some((r) => r.pairs.some((p) => p.value === 'uaccess'))).toBe(false);
  });

  // udevadm's own parser, run in a private mount namespace so /etc/udev/rules.d shows only our
  // file (udevadm test reads the rules before it looks up the device; the device does not exist,
  // so nothing is applied). Needs root (or user namespaces) and systemd's udevadm.
  const udevadmUsable =
    process.platform === 'linux' &&
    ['/usr/bin/udevadm', '/bin/udevadm'].some((p) => existsSync(p)) &&
    ['/usr/bin/unshare', '/bin/unshare'].some((p) => existsSync(p));
  it.skipIf(!udevadmUsable)('is accepted by udevadm', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'cd-udev-'));
    try {
      copyFileSync(RULE_SOURCE, join(dir, RULE_NAME));
      writeFileSync(join(dir, '71-broken.rules'), 'SUBSYSTEM=="tty", ATTRS{idVendor}="0403, GROUP="dialout"\n');
      const script = 'mount --bind "$1" /etc/udev/rules.d && exec udevadm test --action=add /sys/devices/capture-desk-no-such-device';
      const res = await run('unshare', ['-m', 'sh', '-c', script, 'sh', dir], { timeoutMs: 30_000 });
      if (/mount: .*(permission denied|must be superuser)|unshare: .*(Operation not permitted|permission denied)/i.test(res.output)) {
        ctx.skip(`udevadm check not possible here (needs a mount namespace): ${tail(res.output, 2)}`);
        return;
      }
      expect(res.output, tail(res.output)).toContain(`Reading rules file: /etc/udev/rules.d/${RULE_NAME}`);
      // udevadm reports problems as "<file>:<line> <message>"; the broken file proves it does.
      expect(res.output, tail(res.output)).toMatch(/71-broken\.rules:1 /);
      const ours = res.output.split('\n').filter((l) => l.includes(`${RULE_NAME}:`));
      expect(ours).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
