// README.md stays a front door whose facts are true: short, with the two commands CI runs, links
// that land inside the repository, and a "CLI at a glance" whose every shown output is what the
// program prints today. When a help text or a message changes, the failure names the README block
// and shows the program's real output, so the README (or the program) can be put right.
//
// Needs the build (`npm run build`; npm test does it): the CLI blocks run dist/cli/capture-desk.js.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src-renderer/lib/manual/markdown.js';
import { assertBuilt, CLI } from '../support/cli.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer, type IngestionServer } from '../support/ingestion-server/server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const MANUAL = join(ROOT, 'resources/manual');
const TEST_KEY = 'ei_test_key'; // the emulator's key; README writes `ei_…`

describe('README.md as a front door', () => {
  it('stays short: under 300 lines (the rest belongs in the manual)', () => {
    expect(README.split('\n').length).toBeLessThan(300);
  });

  it('gives the two commands, the test one as CI runs it, root and non-root', () => {
    expect(README).toContain('\nnpm ci && npm start\n');
    expect(README).toContain('\nbash .ci/system-deps.sh && npm ci && npm test\n');
    expect(README).toContain('sudo bash .ci/system-deps.sh && npm ci && npm test');
    // CI runs that same command: the system packages, npm ci, npm test, in that order.
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    const steps = ['\nbash .ci/system-deps.sh\n', '\nnpm ci ', '\nnpm test\n'].map((s) => ci.indexOf(s));
    expect(steps.every((at) => at >= 0), `.ci/run runs ${steps}`).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.test).toBe('bash test/run.sh');
  });

  it("says the Node version package.json's engines asks for", () => {
    const engines = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines.node as string;
    expect(engines).toMatch(/^>=\d+\.\d+$/);
    expect(README).toContain(`Node.js ${engines.slice(2)} or newer`);
  });

  it("npm test's hint for missing system tools says the command that works for the user running it", () => {
    const run = readFileSync(join(ROOT, 'test/run.sh'), 'utf8');
    expect(run).toContain('install="bash .ci/system-deps.sh"');
    expect(run).toContain('[ "$(id -u)" -eq 0 ] || install="sudo $install"');
  });
});

/** Markdown files whose links must hold: README and every manual page. */
const DOCS = ['README.md', ...readdirSync(MANUAL).filter((f) => f.endsWith('.md')).map((f) => `resources/manual/${f}`)];

/** The heading ids a markdown file has, as GitHub (and the Manual view) make them. */
const idsOf = (file: string) => new Set(renderMarkdown(readFileSync(file, 'utf8')).headings.map((h) => h.id));

/** Links outside code: `[text](target)` and `![alt](target)`. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('links in README.md and the manual', () => {
  it.each(DOCS)('%s: every relative link names a file inside the repository, and every #heading exists', (doc) => {
    const from = join(ROOT, doc);
    const problems: string[] = [];
    for (const target of linksOf(readFileSync(from, 'utf8'))) {
      if (/^https:\/\//.test(target)) continue;
      if (/^[a-z]+:/i.test(target)) {
        problems.push(`${target}: only https:// links may leave the repository`);
        continue;
      }
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path ? resolve(dirname(from), path) : from;
      if (relative(ROOT, file).startsWith('..')) problems.push(`${target}: points outside the repository`);
      else if (!existsSync(file)) problems.push(`${target}: no such file`);
      else if (anchor !== undefined && (!file.endsWith('.md') || !statSync(file).isFile() || !idsOf(file).has(anchor))) problems.push(`${target}: no heading #${anchor} there`);
    }
    expect(problems).toEqual([]);
  });

  it.each(DOCS)('%s: every code fence is closed (an open one swallows the rest of the page)', (doc) => {
    expect((readFileSync(join(ROOT, doc), 'utf8').match(/^```/gm) ?? []).length % 2).toBe(0);
  });

  it('none names a place outside the repository, linked or not (../shared and the like)', () => {
    for (const doc of DOCS) expect(readFileSync(join(ROOT, doc), 'utf8'), doc).not.toMatch(/\.\.\/shared\b/);
  });

  it('README links every page of the manual', () => {
    const linked = new Set(linksOf(README).filter((l) => l.startsWith('resources/manual/')).map((l) => l.split('#')[0]));
    for (const doc of DOCS.filter((d) => d.startsWith('resources/manual/'))) expect(linked, doc).toContain(doc);
  });
});

// ---------- "The CLI at a glance": every shown output is the program's ----------

interface Shown {
  block: number;
  command: string;
  expected: string[];
}

/** The `console` blocks of one README section: `$ command` lines, each followed by the output shown. */
function consoleBlocks(markdown: string, section: string): Shown[] {
  const start = markdown.indexOf(`\n## ${section}\n`);
  if (start < 0) throw new Error(`README.md has no "## ${section}" section`);
  const end = markdown.indexOf('\n## ', start + 1);
  const body = markdown.slice(start, end < 0 ? undefined : end);
  const shown: Shown[] = [];
  let block = 0;
  for (const m of body.matchAll(/```console\n([\s\S]*?)```/g)) {
    block++;
    for (const line of m[1]!.replace(/\n$/, '').split('\n')) {
      if (line.startsWith('$ ')) shown.push({ block, command: line.slice(2), expected: [] });
      else if (shown.at(-1)?.block === block) shown.at(-1)!.expected.push(line);
      else throw new Error(`README.md, ${section}, block ${block}: output before any "$ " command: ${line}`);
    }
  }
  return shown;
}

/**
 * Does the output match what README shows? A line of just `…` stands for any number of lines; a
 * `…` inside a line for any text there. Everything else must be exactly what was printed.
 */
export function matchesShown(expected: string[], actual: string[]): boolean {
  const line = (pattern: string, text: string) =>
    pattern.includes('…') ? new RegExp(`^${pattern.split('…').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`).test(text) : pattern === text;
  const go = (e: number, a: number): boolean => {
    if (e === expected.length) return a === actual.length;
    if (expected[e] === '…') {
      for (let k = a; k <= actual.length; k++) if (go(e + 1, k)) return true;
      return false;
    }
    return a < actual.length && line(expected[e]!, actual[a]!) && go(e + 1, a + 1);
  };
  return go(0, 0);
}

describe('README.md: The CLI at a glance', () => {
  const shown = consoleBlocks(README, 'The CLI at a glance');
  let platform: IngestionServer;
  let world = '';

  beforeAll(async () => {
    assertBuilt();
    platform = await startIngestionServer();
    // The commands run as a stranger would, in a folder with captures to upload and a data folder
    // of their own (XDG_CONFIG_HOME) whose settings name the platform emulator.
    world = await mkdtemp(join(tmpdir(), 'cd-readme-'));
    await mkdir(join(world, 'captures'));
    for (const [name, x] of [['idle.01.cbor', 1], ['idle.02.cbor', 2], ['wave.01.cbor', 3]] as const) {
      await writeFile(join(world, 'captures', name), encodeCbor(sensorDoc([[x, 1], [x, 2], [x, 3]])));
    }
    await mkdir(join(world, 'config', 'Capture Desk'), { recursive: true });
    await writeFile(join(world, 'config', 'Capture Desk', 'settings.json'), JSON.stringify({ ingestionUrl: platform.url }));
  });
  afterAll(() => platform?.close());

  it('`npx capture-desk` runs the build as a program, after every build (the file is executable, package.json names it)', async () => {
    // npx links the checkout once and then runs dist/cli/capture-desk.js itself; a rebuild that
    // left it without the executable bit made every later `npx capture-desk` "Permission denied".
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; version: string };
    expect(resolve(ROOT, pkg.bin['capture-desk']!)).toBe(resolve(CLI));
    expect(statSync(CLI).mode & 0o111, `${CLI} is not executable`).toBe(0o111);
    const r = await bash(`'${CLI}' --version`, { cwd: world, env: process.env });
    expect(r).toMatchObject({ status: 0, stdout: `capture-desk ${pkg.version}\n` });
  });

  it('shows at least --help, a command help and an upload with its summary', () => {
    expect(shown.map((s) => s.command)).toEqual(
      expect.arrayContaining(['npx capture-desk --help', 'npx capture-desk upload --help', expect.stringMatching(/npx capture-desk upload /)]),
    );
    for (const s of shown) expect(s.expected.length, s.command).toBeGreaterThan(0);
  });

  // In order: later blocks see what earlier ones did (the second upload finds the first's files).
  it.each(shown.map((s, i) => [`block ${s.block}: $ ${s.command}`, i] as const))('%s', async (_name, i) => {
    const s = shown[i]!;
    const command = s.command.replaceAll('npx capture-desk', `node '${CLI}'`).replaceAll('ei_…', TEST_KEY);
    // Not spawnSync: the platform emulator answers from this process's event loop.
    const r = await bash(command, { cwd: world, env: { ...process.env, XDG_CONFIG_HOME: join(world, 'config'), CAPTURE_DESK_API_KEY: '', NO_COLOR: '1' } });
    const actual = r.stdout.replace(/\n$/, '').split('\n');
    const where = `README.md, "The CLI at a glance", block ${s.block}: $ ${s.command}`;
    expect(r.status, `${where}\nexited ${r.status}; stderr:\n${r.stderr}`).toBe(0);
    if (!matchesShown(s.expected, actual)) {
      expect.fail(`${where}\nREADME shows:\n${s.expected.join('\n')}\n\nthe program printed (stdout):\n${actual.join('\n')}\n\nPut the README right (or the program), then run this test again.`);
    }
  });
});

function bash(command: string, opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', command], { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', fail);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

describe('the README test itself', () => {
  it('matches … as any lines or any text, and nothing else loosely', () => {
    expect(matchesShown(['a', '…', 'd'], ['a', 'b', 'c', 'd'])).toBe(true);
    expect(matchesShown(['a', '…', 'd'], ['a', 'd'])).toBe(true);
    expect(matchesShown(['x…z'], ['x-y-z'])).toBe(true);
    expect(matchesShown(['a (b)'], ['a (b)'])).toBe(true);
    expect(matchesShown(['a'], ['a', 'b'])).toBe(false);
    expect(matchesShown(['x…z'], ['x-y-z!'])).toBe(false);
    expect(matchesShown(['a.c'], ['abc'])).toBe(false);
  });
});
