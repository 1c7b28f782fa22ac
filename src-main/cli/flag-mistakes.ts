/**
 * The command-line mistakes node's parseArgs would throw on, found first and said in plain
 * sentences: its own texts ("argument is ambiguous", `as in '-- "--bogus"` with an unbalanced
 * quote) were printed as they were. Also what it lets pass silently: a one-value flag given twice
 * (it kept the last) and a negative number after a flag (it refused `--axes -1` as ambiguous,
 * though the command's range check has the sentence a person needs).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './args.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A value such as -1, -0.5, -.5 or -1e3: a number, not a flag (no flag's name starts with a digit). */
const NEGATIVE_NUMBER = /^-\.?\d/;
/** Flags whose values are secrets (--api-key, --hmac-key, --api-key-file is a path and is said). */
const SECRET = /(^|-)key$|secret|token|password/;

/**
 * True when -h or --help (or --help=…) stands as its own argument before a `--` terminator.
 * A --help that parseArgs would take as a flag's value (`--label --help`) counts too: no one means
 * a label "--help", and help is the reading that cannot do harm.
 */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '-h' || a === '--help' || a.startsWith('--help=')) return true;
  }
  return false;
}

/**
 * Throws a UsageError naming the first mistake in `argv`; otherwise returns `argv` with every
 * negative number that follows a flag joined to it (`--axes -1` → `--axes=-1`), which the strict
 * parse then takes as that flag's value.
 */
export function checkFlags(argv: string[], options: Options, allowPositionals: boolean): string[] {
  const { tokens } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const given = new Map<string, string>();
  const joined = [...argv];
  const dropped = new Set<number>();
  for (const t of tokens) {
    if (t.kind === 'option-terminator') break;
    if (t.kind === 'positional') {
      if (!allowPositionals) throw new UsageError(`Unexpected argument "${t.value}": this command takes only options.`);
      continue;
    }
    const o = options[t.name];
    if (!o) throw new UsageError(`Unknown option ${t.rawName}.`);
    if (o.type === 'boolean') {
      if (t.inlineValue) throw new UsageError(`${t.rawName} takes no value; write ${t.rawName} alone.`);
      continue;
    }
    const value = t.value;
    if (value === undefined) throw new UsageError(`${t.rawName} needs a value.`);
    if (!t.inlineValue && value.startsWith('-')) {
      if (!NEGATIVE_NUMBER.test(value)) throw new UsageError(`${t.rawName} needs a value, but is followed by the option ${value}. A value that starts with "-" is written ${t.rawName}=${value}.`);
      joined[t.index] = `${t.rawName}=${value}`;
      dropped.add(t.index + 1);
    }
    const before = given.get(t.name);
    if (before !== undefined && !o.multiple) {
      // A key's value is never echoed (a terminal's scrollback, a CI log).
      const values = SECRET.test(t.name) ? '' : ` ("${before}", then "${value}")`;
      throw new UsageError(`--${t.name} was given twice${values}; give it once.`);
    }
    given.set(t.name, value);
  }
  return joined.filter((_, i) => !dropped.has(i));
}
