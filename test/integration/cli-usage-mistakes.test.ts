// Command-line mistakes an outside audit found, through the built CLI: --help wins over any other
// mistake, and every mistake is a plain sentence naming the flag or argument, exit 2, with none of
// node's parseArgs wording ("argument is ambiguous", `as in '-- "--bogus"`). Nothing here needs a
// board or a network: the mistakes are refused before anything opens.
import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

/** The current folder of every run: nothing may appear in it. */
const root = useTempDir('cd-cli-usage-mistakes-');
/** Data folders of commands that open theirs before the mistake is found. */
const data = useTempDir('cd-cli-usage-data-');
const NODE_TEXT = /ambiguous|as in '|ERR_PARSE_ARGS|argument missing|does not take an argument|positional arguments/;

/** A usage error: exit 2, nothing on stdout, exactly `said` then the pointer to `cmd`'s help. */
async function refused(args: string[], cmd: string, said: string): Promise<void> {
  const r = await runCli(args, { cwd: root() });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`capture-desk ${cmd}: ${said}\nRun "capture-desk ${cmd} --help" for usage.\n`);
  expect(r.stderr).not.toMatch(NODE_TEXT);
}

describe('--help wins over every other mistake', () => {
  it.each([
    [['samples', 'list', '--bogus', '--help'], 'Usage: capture-desk samples '],
    [['record', 'audio', '--help', '--bogus'], 'Usage: capture-desk record audio'],
    [['record', 'serial', '--help', '--port'], 'Usage: capture-desk record serial'],
    [['model', 'test', '--model', '--help'], 'Usage: capture-desk model test'],
    [['samples', 'nosuch', '--help'], 'Usage: capture-desk samples '],
    [['help', 'record', 'serial', 'extra'], 'Usage: capture-desk record serial'],
    [['serve', '--help=1'], 'Usage: capture-desk serve'],
    [['upload', '--label', '--help'], 'Usage: capture-desk upload'],
    [['check', '--api-key', 'x', '--api-key', 'y', '-h'], 'Usage: capture-desk check'],
  ])('%j prints its help on stdout, exit 0', async (args, usage) => {
    const r = await runCli(args, { cwd: root() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.startsWith(usage), r.stdout.slice(0, 80)).toBe(true);
    expect(await readdir(root()), 'help created something').toEqual([]);
  });
});

describe('empty paths', () => {
  it.each([
    [['samples', 'list', '--data-dir', ''], 'samples list', '--data-dir is empty: give a folder\'s path, or leave --data-dir out.'],
    [['samples', 'export', '--out', '', '--data-dir', 'd'], 'samples export', '--out is empty: give a folder\'s path, or leave --out out.'],
    [['serve', '--cert', '', '--key', 'k'], 'serve', '--cert is empty: give a file\'s path, or leave --cert out.'],
    [['serve', '--api-key-file', ' '], 'serve', '--api-key-file is empty: give a file\'s path, or leave --api-key-file out.'],
    [['model', 'test', '--model', 'a', '--data-dir', ''], 'model test', '--data-dir is empty: give a folder\'s path, or leave --data-dir out.'],
  ])('%j is refused, naming the flag, and creates nothing in the current folder', async (args, cmd, said) => {
    await refused(args, cmd, said);
    expect(existsSync(join(root(), 'samples.db'))).toBe(false);
    expect(await readdir(root())).toEqual([]);
  });
});

describe('flags parseArgs refused in its own words, or let pass', () => {
  it.each([
    [['samples', 'list', '--bogus'], 'samples list', 'Unknown option --bogus.'],
    [['upload', '--bogus=1', 'x'], 'upload', 'Unknown option --bogus.'],
    [['record', 'serial', '--port'], 'record serial', '--port needs a value.'],
    [['record', 'serial', '--port', '--json'], 'record serial', '--port needs a value, but is followed by the option --json. A value that starts with "-" is written --port=--json.'],
    [['samples', 'list', '--json=yes'], 'samples list', '--json takes no value; write --json alone.'],
    [['check', 'extra'], 'check', 'Unexpected argument "extra": this command takes only options.'],
  ])('%j: a plain sentence, exit 2', async (args, cmd, said) => {
    await refused(args, cmd, said);
  });

  it('a negative number after a flag is its value, and gets the range sentence', async () => {
    await refused(['model', 'set-axes', 'm', '--axes', '-1', '--data-dir', data()], 'model set-axes', '--axes must be a whole number from 1 to 64; got "-1".');
    await refused(['upload', '--concurrency', '-2', 'x'], 'upload', '--concurrency must be a whole number from 1 to 64; got "-2".');
  });

  it('a model command refused for its values makes no data folder (set-axes made an empty one first)', async () => {
    const dir = join(data(), 'not-yet');
    await refused(['model', 'set-axes', 'm', '--axes', 'three', '--data-dir', dir], 'model set-axes', '--axes must be a whole number from 1 to 64; got "three".');
    await refused(['model', 'set-axes', 'm', '--data-dir', dir], 'model set-axes', 'model set-axes needs --axes N (how many axes a window holds; a microphone model is one).');
    await refused(['model', 'add', 'x.zip', '--axes', '0', '--data-dir', dir], 'model add', '--axes must be a whole number from 1 to 64; got "0".');
    await refused(['model', 'info', '--data-dir', dir], 'model info', 'model info takes one NAME.');
    await refused(['model', 'remove', 'a', 'b', '--data-dir', dir], 'model remove', 'model remove takes one NAME.');
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    [['record', 'serial', '--port', 'A', '--port', 'B'], 'record serial', '--port was given twice ("A", then "B"); give it once.'],
    [['samples', 'list', '--data-dir', 'a', '--data-dir', 'b'], 'samples list', '--data-dir was given twice ("a", then "b"); give it once.'],
    [['upload', '--label=x', '--label', 'y', 'f'], 'upload', '--label was given twice ("x", then "y"); give it once.'],
    // A key is not echoed.
    [['upload', '--api-key', 'ei_secret1', '--api-key', 'ei_secret2', 'f'], 'upload', '--api-key was given twice; give it once.'],
  ])('%j: a one-value flag given twice is refused, naming it', async (args, cmd, said) => {
    await refused(args, cmd, said);
    expect(await readdir(root())).toEqual([]);
  });

  it('a flag declared multiple may be given twice', async () => {
    const r = await runCli(['samples', 'list', '--state', 'local', '--state', 'queued', '--data-dir', data()]);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('serve --port', () => {
  it('serve --port empty or not digits is refused (an empty one picked a random port)', async () => {
    for (const port of ['', 'abc', '0x50']) {
      await refused(['serve', '--port', port, '--data-dir', data()], 'serve', `--port must be a whole number from 0 to 65535 (0 picks a free port), got ${port ? `"${port}"` : 'an empty value'}.`);
    }
  });
});

describe('model test and samples classify numbers', () => {
  it('model test refuses a stride below 1 ms at once (1e-300 ran for minutes), as samples classify does', async () => {
    const t0 = Date.now();
    await refused(['model', 'test', '--model', 'a', '--stride-ms', '1e-300', '--data-dir', data()], 'model test', '--stride-ms must be at least 1 millisecond; got "1e-300".');
    await refused(['model', 'test', '--model', 'a', '--stride-ms', '0.5', '--data-dir', data()], 'model test', '--stride-ms must be at least 1 millisecond; got "0.5".');
    await refused(['model', 'test', '--model', 'a', '--workers', '', '--data-dir', data()], 'model test', '--workers must be a whole number from 1 to 16; got "".');
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it('samples classify --threshold "" is refused, not taken as 0', async () => {
    await refused(['samples', 'classify', 'ID', '--model', 'a', '--threshold', '', '--data-dir', data()], 'samples classify', '--threshold must be a number from 0 to 1; got "".');
  });
});

describe('samples: numbers out of range are said as the range', () => {
  it('samples split --threshold, --window-ms; samples set-rate --frequency given out of range', async () => {
    await refused(['samples', 'split', 'ID', '--auto', '--threshold=-1'], 'samples split', '--threshold is a ratio over the noise floor and must be above 1; got "-1".');
    await refused(['samples', 'split', 'ID', '--auto', '--threshold', '-1'], 'samples split', '--threshold is a ratio over the noise floor and must be above 1; got "-1".');
    await refused(['samples', 'split', 'ID', '--auto', '--window-ms', '-5'], 'samples split', '--window-ms must be a number of at least 1; got "-5".');
    await refused(['samples', 'set-rate', 'ID', '--frequency', '1e6', '--data-dir', data()], 'samples set-rate', '--frequency must be a number of hertz above 0 and at most 100000; got "1e6".');
    await refused(['samples', 'set-rate', 'ID', '--frequency', '', '--data-dir', data()], 'samples set-rate', '--frequency must be a number of hertz above 0 and at most 100000; got "".');
  });
});

describe('arguments a command does not take', () => {
  it.each([['list'], ['recover'], ['export']])('samples %s extra is refused before the data folder is made', async (sub) => {
    const dir = join(data(), `extra-${sub}`);
    await refused(['samples', sub, 'extra', '--out', join(data(), 'out'), '--data-dir', dir], `samples ${sub}`, `samples ${sub} takes no arguments; got "extra".`);
    expect(existsSync(dir)).toBe(false);
  });

  it('a --help after the -- terminator is an argument, not help', async () => {
    await refused(['samples', 'list', '--', '--help'], 'samples list', 'samples list takes no arguments; got "--help".');
  });
});

describe('paths that are not there or not importable', () => {
  it('samples import names a missing path, and a file of a type it does not take, listing the types (exit 1)', async () => {
    const png = join(data(), 'p.png');
    const bare = join(data(), 'noext');
    await writeFile(png, 'x');
    await writeFile(bare, 'x');
    const types = 'not a file samples import takes: an info.labels file or its folder, a .csv file of readings, or a .wav, .cbor or .json sample.';
    for (const [path, why] of [[join(data(), 'nonexist'), 'no such file or folder.'], [png, types], [bare, types]] as const) {
      const r = await runCli(['samples', 'import', path, '--data-dir', join(data(), 'import')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`capture-desk samples import: ${path}: ${why}\n`);
    }
    const both = await runCli(['samples', 'import', join(data(), 'nonexist'), png, '--data-dir', join(data(), 'import')]);
    expect(both.code).toBe(1);
    expect(both.stderr).toBe(`not imported ${join(data(), 'nonexist')}: no such file or folder.\nnot imported ${png}: ${types}\nImported 0 samples, 2 not imported.\n`);
  });
});

describe('upload of a missing path', () => {
  it('upload of a missing path says "no such file or folder", not ENOENT', async () => {
    const missing = join(data(), 'nonexist');
    const r = await runCli(['upload', missing, '--data-dir', join(data(), 'upload'), '--api-key', 'ei_0123456789abcdef0123456789abcdef', '--ingestion-url', 'http://127.0.0.1:9']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`skipped ${missing}: no such file or folder\n`);
    expect(r.stderr).not.toContain('ENOENT');
  });
});

describe('--label as the app takes one', () => {
  it('a newline or other control character, or more than 128 characters, is refused before anything opens (it used to be kept, and refused only by the upload)', async () => {
    const long = 'x'.repeat(129);
    await refused(['record', 'serial', '--port', '/dev/null', '--label', 'wave\nidle', '--data-dir', join(data(), 'a')], 'record serial', '--label must not hold a newline, tab or other control character; got "wave\\nidle".');
    await refused(['record', 'audio', '--label', 'a\tb', '--data-dir', join(data(), 'b')], 'record audio', '--label must not hold a newline, tab or other control character; got "a\\tb".');
    await refused(['samples', 'import', root(), '--label', long, '--data-dir', join(data(), 'c')], 'samples import', '--label must be at most 128 characters; got 129.');
    await refused(['samples', 'import', root(), '--label', ' ', '--data-dir', join(data(), 'd')], 'samples import', '--label must not be empty.');
    await refused(['upload', root(), '--label', 'a\u007fb', '--api-key', 'ei_x', '--data-dir', join(data(), 'e')], 'upload', '--label must not hold a newline, tab or other control character; got "a\\u007fb".');
    for (const d of ['a', 'b', 'c', 'd', 'e']) expect(existsSync(join(data(), d, 'samples.db')), d).toBe(false);
  });
});
