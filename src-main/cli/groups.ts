/**
 * Commands made of sub-commands (`record serial`, `model add`, …), written once: which
 * sub-commands each has, the one line that says what each does, and what the group prints when
 * asked for help or given none. A group's help used to be the error "record what?" that sent you
 * back to the same help; it now lists where to go.
 */
import type { CliCommand } from './commands.js';
import { asksForHelp } from './flag-mistakes.js';

export interface SubCommand {
  name: string;
  /** One line: what it does (the synopsis is in its own --help). */
  line: string;
}

export interface Group {
  name: CliCommand;
  subs: SubCommand[];
  /** A sentence after the list, for what lives in another group. */
  also?: string;
}

export const GROUPS = {
  record: {
    name: 'record',
    subs: [
      { name: 'serial', line: 'record one sample from a serial board: numbers per line, Nordic or AT firmware' },
      { name: 'audio', line: 'record one audio sample (WAV) from a microphone' },
    ],
  },
  devices: {
    name: 'devices',
    subs: [
      { name: 'audio', line: 'list the microphones, or pick the one recordings use (--select)' },
      { name: 'serial', line: 'list the serial ports and the boards on them; --probe reads what each sends' },
    ],
    also: 'Record from a serial board by its port (--port PATH, e.g. /dev/ttyACM0, COM5).',
  },
  classify: {
    name: 'classify',
    subs: [{ name: 'live', line: 'run an added model on a live board or microphone, window by window' }],
    also: 'A sample already in the data directory: "capture-desk samples classify ID --model NAME".',
  },
  model: {
    name: 'model',
    subs: [
      { name: 'add', line: 'add the project\'s exported model (WebAssembly .zip, folder or .js)' },
      { name: 'list', line: 'list the added models' },
      { name: 'info', line: 'describe one model: sensor, rate, window, axes, labels' },
      { name: 'set-axes', line: 'say how many axes a model takes, for a build that does not say it' },
      { name: 'remove', line: 'remove an added model' },
      { name: 'test', line: 'test a model on the samples here: confusion matrix, per-label figures, two models compared' },
    ],
  },
  samples: {
    name: 'samples',
    subs: [
      { name: 'list', line: 'list the samples in the data directory' },
      { name: 'export', line: 'write them in the platform\'s exchange layout (info.labels)' },
      { name: 'import', line: 'import an export, a .csv of readings, or single sample files' },
      { name: 'set-rate', line: 'give a sample kept without its sampling rate its rate' },
      { name: 'recover', line: 'turn recordings left mid-capture into incomplete samples now' },
      { name: 'split', line: 'one new sample per event found in a sample' },
      { name: 'classify', line: 'classify a sample, on the platform or with an added model' },
    ],
  },
} as const satisfies Partial<Record<CliCommand, Group>>;

export type GroupName = keyof typeof GROUPS;

export function isGroup(name: string): name is GroupName {
  return Object.hasOwn(GROUPS, name);
}

/** The sub-command `argv[0]` names, if `group` is a group and has it. */
export function subCommandOf(group: string, sub: string | undefined): string | null {
  if (!isGroup(group) || sub === undefined) return null;
  return (GROUPS[group].subs as readonly SubCommand[]).some((s) => s.name === sub) ? sub : null;
}

/** `capture-desk record --help`: the sub-commands, one line each, and where each one's options are. */
export function groupHelp(g: Group): string {
  const width = Math.max(...g.subs.map((s) => s.name.length)) + g.name.length + 1;
  const list = g.subs.map((s) => `  ${`${g.name} ${s.name}`.padEnd(width)}  ${s.line}`).join('\n');
  return (
    `Usage: capture-desk ${g.name} <${g.subs.map((s) => s.name).join('|')}> [options]\n\n${list}\n\n` +
    (g.also ? `${g.also}\n` : '') +
    (g.subs.length === 1
      ? `Run "capture-desk ${g.name} ${g.subs[0]!.name} --help" for its options.\n`
      : `Run "capture-desk ${g.name} <sub-command> --help" for its options, e.g. "capture-desk ${g.name} ${g.subs[0]!.name} --help".\n`)
  );
}

/**
 * What a group does with its first argument before its sub-command runs: --help prints the list
 * (stdout, 0), also after an unknown word (`samples nosuch --help`: help wins over the mistake, as
 * in every command); nothing or an unknown word says so and prints the list (stderr, 2). Returns the
 * exit code then, or null when `argv[0]` is one of its sub-commands. `usage` is the group's own
 * longer help where it has one (model, samples: every sub-command's synopsis in one page).
 */
export function groupPreamble(g: Group, argv: string[], usage = groupHelp(g)): number | null {
  const [sub] = argv;
  const known = sub !== undefined && g.subs.some((s) => s.name === sub);
  if (known) return null; // its own --help is the sub-command's to print
  if (asksForHelp(argv)) {
    process.stdout.write(usage);
    return 0;
  }
  const what = sub === undefined ? 'needs a sub-command' : `has no sub-command "${sub}"`;
  process.stderr.write(`capture-desk ${g.name} ${what}.\n\n${groupHelp(g)}`);
  return 2;
}
