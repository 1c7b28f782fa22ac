import { APP_VERSION } from '../core/version.js';
import { UsageError } from './args.js';
import { CLI_HELP_ARGS, CLI_VERSION_ARGS, type CliCommand } from './commands.js';
import { GROUPS, groupPreamble, subCommandOf } from './groups.js';
import { errorText } from './system-error.js';

const USAGE = `Usage: capture-desk <command> [options]

Commands:
  serve     run the core and serve the user interface to a browser
  upload    upload files or folders to the platform's ingestion service
  samples   list, export, import, split or classify the samples in the data directory
  record    record a sample: "record serial" from a board, "record audio" from a microphone
  devices   list capture devices: "devices audio", "devices serial"
  connect   connect boards and microphones to the platform as devices (it records from them)
  check     check the API key, project id and URLs: is this talking to my project?
  model     add, test, list, describe, set-axes or remove the project's exported model (WebAssembly)
  classify  run a model on a live board or microphone: "classify live"

Run "capture-desk <command> --help" (or "capture-desk help <command>") for a command's options or
sub-commands; "capture-desk --version" prints the version.
`;

type Command = (argv: string[]) => Promise<number>;
// Loaded on demand: a script calling `upload` should not pay for the HTTP server's start-up.
// Typed by CLI_COMMANDS so the desktop app's passthrough (electron/cli-passthrough.ts) knows every command.
const commands: Record<CliCommand, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serveCommand,
  upload: async () => (await import('./upload.js')).uploadCommand,
  samples: async () => (await import('./samples.js')).samplesCommand,
  record: async () => async (argv) => {
    const [what, ...rest] = argv;
    if (what === 'serial') return (await import('./record-serial.js')).recordSerialCommand(rest);
    if (what === 'audio') return (await import('./audio.js')).recordAudioCommand(rest);
    return groupPreamble(GROUPS.record, argv) ?? 2;
  },
  connect: async () => (await import('./connect.js')).connectCommand,
  check: async () => (await import('./check.js')).checkCommand,
  model: async () => (await import('./model.js')).modelCommand,
  classify: async () => async (argv) => {
    const [what, ...rest] = argv;
    if (what === 'live') return (await import('./classify-live.js')).classifyLiveCommand(rest);
    return groupPreamble(GROUPS.classify, argv) ?? 2;
  },
  devices: async () => async (argv) => {
    const [what, ...rest] = argv;
    if (what === 'audio') return (await import('./audio.js')).devicesCommand(rest);
    if (what === 'serial') return (await import('./devices-serial.js')).devicesSerialCommand(rest);
    return groupPreamble(GROUPS.devices, argv) ?? 2;
  },
};

async function main(argv: string[]): Promise<number> {
  const [first, ...afterFirst] = argv;
  // `capture-desk help record serial` is `capture-desk record serial --help`, so the two never disagree.
  if (first === 'help' && afterFirst.length) return main([...afterFirst, '--help']);
  const [name, ...rest] = argv;
  if (name === undefined || (CLI_HELP_ARGS as readonly string[]).includes(name)) {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  if ((CLI_VERSION_ARGS as readonly string[]).includes(name)) {
    process.stdout.write(`capture-desk ${APP_VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(commands, name) ? commands[name as CliCommand] : undefined;
  if (!load) {
    process.stderr.write(`capture-desk: unknown command "${name}".\n\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (err) {
    // parseCommand says flag mistakes in its own sentences (flag-mistakes.ts); a parseArgs called
    // anywhere else still throws ERR_PARSE_ARGS_* TypeErrors, which are usage errors all the same.
    const code = (err as NodeJS.ErrnoException).code ?? '';
    // A sub-command's mistake names it and points at its own help, not at the group's list.
    const sub = subCommandOf(name, rest[0]);
    const who = sub ? `${name} ${sub}` : name;
    if (err instanceof UsageError || code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`capture-desk ${who}: ${(err as Error).message}\nRun "capture-desk ${who} --help" for usage.\n`);
      return 2;
    }
    process.stderr.write(`capture-desk ${who}: ${errorText(err)}\n`);
    return 1;
  }
}

// Commands that have committed, flushed and printed everything by the time they return. Their
// process ends then instead of waiting for Node's teardown, which for `upload` was ~0.1 s of
// SQLite folding its journal into samples.db on the last close (the next open does that).
const ENDS_ON_RETURN: ReadonlySet<string> = new Set(['upload']);

/** Resolves once what was written to the stream so far has been handed to the OS (pipes are asynchronous on macOS). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

// A reader that stops early (`capture-desk samples list | head`) closes the pipe: what is left
// unprinted has nobody to read it. That ends the command successfully, as it does for ls or git,
// instead of an unhandled EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

// A command still waiting when nothing is left that could wake it (no timer, socket or child)
// would end with exit code 0 and no summary, as if it had succeeded: said, and exit 1 instead.
let settled = false;
process.on('beforeExit', () => {
  if (settled) return;
  settled = true;
  process.stderr.write(`capture-desk ${process.argv[2] ?? ''}: stopped before it finished, waiting for something that cannot happen any more (a fault in Capture Desk; please report it). Only what it printed as done is done.\n`);
  process.exitCode = 1;
});

main(process.argv.slice(2)).then(
  async (code) => {
    settled = true;
    process.exitCode = code;
    if (!ENDS_ON_RETURN.has(process.argv[2] ?? '')) return;
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(code);
  },
  (err: unknown) => {
    settled = true;
    process.stderr.write(`capture-desk: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
