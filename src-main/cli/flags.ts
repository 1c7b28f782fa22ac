/**
 * How every command reads its flags, written once: each command had the same parseArgs call and
 * the same -h/--help block, with the same long list of `{ type: 'string' }` lines.
 */
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';

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
const PATH_FLAGS = ['data-dir', 'out', 'cert', 'key', 'api-key-file'] as const;

/**
 * node's parseArgs, strict (an unknown or malformed flag throws ERR_PARSE_ARGS_*, which main.ts
 * turns into a usage error, exit 2), plus -h/--help: that prints `usage` on stdout and returns
 * null, and the command then returns 0 before checking anything else.
 * Arguments other than flags are refused unless `{ positionals: true }`.
 */
export function parseCommand<const O extends Options, const P extends boolean = false>(
  argv: string[],
  usage: string,
  options: O,
  o?: { positionals: P },
) {
  const config = { args: argv, allowPositionals: (o?.positionals ?? false) as P, options: { ...options, ...HELP } };
  const parsed = parseArgs(config);
  const values = parsed.values as Record<string, unknown>;
  for (const flag of PATH_FLAGS) {
    const given = values[flag];
    // An empty value stays empty, for the command to refuse as it would have.
    if (typeof given === 'string' && given !== '') values[flag] = resolve(given);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage);
    return null;
  }
  return parsed;
}
