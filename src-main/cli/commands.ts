/**
 * The words that start a CLI run. Shared by the CLI's dispatcher (cli/main.ts) and by the desktop
 * app's entry (electron/cli-passthrough.ts), which must tell `Capture-Desk.AppImage samples list`
 * apart from a GUI start with Chromium switches or a file to open.
 */
export const CLI_COMMANDS = ['serve', 'upload', 'samples', 'record', 'devices', 'connect', 'check', 'model', 'classify'] as const;
export type CliCommand = (typeof CLI_COMMANDS)[number];

/** Arguments that mean "help" or "version" for the CLI (only in the first position). */
export const CLI_HELP_ARGS = ['help', '--help', '-h'] as const;
export const CLI_VERSION_ARGS = ['--version', '-v'] as const;

/** True if `arg`, in the command position, starts a CLI run. */
export function isCliWord(arg: string): boolean {
  return ([...CLI_COMMANDS, ...CLI_HELP_ARGS, ...CLI_VERSION_ARGS] as readonly string[]).includes(arg);
}
