/**
 * How every command reads its flags, written once: each command had the same parseArgs call and
 * the same -h/--help block, with the same long list of `{ type: 'string' }` lines.
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './args.js';
import { asksForHelp, checkFlags } from './flag-mistakes.js';

type Options = NonNullable<ParseArgsConfig['options']>;

type Typed<K extends string, T extends 'string' | 'boolean'> = { [P in K]: { type: T } };

/** Flags that take a value (`--port PATH`), by name. */
export function strings<const K extends string>(...names: K[]): Typed<K, 'string'> {
  return Object.fromEntries(names.map((n) => [n, { type: 'string' }])) as Typed<K, 'string'>;
}

/** Flags that stand alone (`--json`), by name. */
export function booleans<const K extends string>(...names: K[]): Typed<K, 'boolean'> {
  return Object.fromEntries(names.map((n) => [n, { type: 'boolean' }])) as Typed<K, 'boolean'>;
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

/**
 * Flags that name a file or folder, in any command that has them. Made absolute here, once, from
 * the folder the command was started in: a relative --data-dir used to travel as given into the
 * model worker, whose require() of the export needs an absolute path, and into paths said later.
 */
const PATH_FLAGS = { 'data-dir': 'folder', out: 'folder', cert: 'file', key: 'file', 'api-key-file': 'file' } as const;

/**
 * node's parseArgs, strict, plus -h/--help: help anywhere before a `--` prints `usage` on stdout
 * and returns null, before any other mistake is looked at (the command then returns 0). A mistake
 * (unknown flag, missing value, a one-value flag given twice, an empty path) throws a UsageError,
 * which main.ts prints with the command's name, exit 2.
 * Arguments other than flags are refused unless `{ positionals: true }`.
 */
export function parseCommand<const O extends Options, const P extends boolean = false>(
  argv: string[],
  usage: string,
  options: O,
  o?: { positionals: P },
) {
  if (asksForHelp(argv)) {
    process.stdout.write(usage);
    return null;
  }
  const allowPositionals = (o?.positionals ?? false) as P;
  const all = { ...options, ...HELP };
  const args = checkFlags(argv, all, allowPositionals);
  const parsed = parseArgs({ args, allowPositionals, options: all });
  const values = parsed.values as Record<string, unknown>;
  for (const [flag, what] of Object.entries(PATH_FLAGS)) {
    const given = values[flag];
    if (typeof given !== 'string') continue;
    // Refused here for every command: resolve("") is the current folder, so an empty --data-dir
    // (an unset variable in a script) made a data directory wherever the command was started.
    if (given.trim() === '') throw new UsageError(`--${flag} is empty: give a ${what}'s path, or leave --${flag} out.`);
    values[flag] = resolve(given);
  }
  return parsed;
}
