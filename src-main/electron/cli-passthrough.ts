// `Capture-Desk.AppImage samples list`: AppImage users cannot reach the launcher inside the image
// (resources/bin/capture-desk), so the app's own entry hands CLI invocations to the CLI. The CLI
// runs in a child process of the same binary with ELECTRON_RUN_AS_NODE=1 (Electron as plain Node,
// the same native modules), stdio shared and its exit code passed on. This must run before the
// single-instance lock: a CLI call beside a running app must not be treated as a second window.
import { spawnSync, type SpawnSyncOptions, type SpawnSyncReturns } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { isCliWord } from '../cli/commands.js';

/**
 * The arguments a person gave. A packaged Electron app has no script path in argv
 * ([exe, ...args]); `electron .` (process.defaultApp) and plain Node do ([exe, script, ...args]).
 */
export function userArgs(argv: readonly string[], o: { defaultApp: boolean; isElectron: boolean }): string[] {
  return argv.slice(o.defaultApp || !o.isElectron ? 2 : 1);
}

/**
 * The CLI's arguments if `args` ask for the CLI, else null (start the GUI).
 *
 * Leading switches are skipped because the AppImage's AppRun puts `--no-sandbox` in front of the
 * user's arguments where user namespaces are off, and macOS may add `-psn_…`; Chromium switches
 * are always one word (`--name=value`), so skipping them cannot eat a value. Only a known CLI word
 * counts: the desktop entry starts the app with `%U`, so a file or URL to open must still open the GUI.
 */
export function cliArgs(args: readonly string[]): string[] | null {
  const at = args.findIndex((a) => isCliWord(a) || !a.startsWith('-'));
  if (at === -1) return null;
  return isCliWord(args[at] ?? '') ? args.slice(at) : null;
}

export interface PassthroughOptions {
  argv: readonly string[];
  defaultApp: boolean;
  isElectron: boolean;
  /** The binary to run: the app itself (process.execPath). */
  execPath: string;
  /** dist/cli/capture-desk.js in the same app (inside app.asar when packaged). */
  cliPath: string;
  env: NodeJS.ProcessEnv;
  spawn?: (command: string, args: string[], options: SpawnSyncOptions) => SpawnSyncReturns<Buffer>;
  stderr?: (text: string) => void;
}

/**
 * Runs the CLI to completion if argv asks for it and returns the exit code to leave with;
 * returns null when the app should start its window as usual.
 *
 * Synchronous on purpose: main.ts calls it before anything else and exits with its result, so no
 * window, lock or core is ever created for a CLI run.
 */
export function runCliIfAsked(o: PassthroughOptions): number | null {
  const args = cliArgs(userArgs(o.argv, o));
  if (args === null) return null;
  const spawn = o.spawn ?? spawnSync;
  // Ctrl-C reaches the whole foreground process group: the CLI handles it (a recording is saved);
  // this parent must outlive the child to pass its exit code on.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    const res = spawn(o.execPath, [o.cliPath, ...args], { stdio: 'inherit', env: { ...o.env, ELECTRON_RUN_AS_NODE: '1' } });
    if (res.error) {
      (o.stderr ?? ((t) => process.stderr.write(t)))(`capture-desk: could not start the command line (${o.execPath}): ${res.error.message}\n`);
      return 1;
    }
    if (res.signal) return 128 + (constants.signals[res.signal] ?? 0);
    return res.status ?? 1;
  } finally {
    process.off('SIGINT', ignore);
  }
}

/** main.ts's hook: runs the CLI and exits when argv asks for it; returns otherwise. */
export function passCliThrough(mainModuleUrl: string): void {
  const code = runCliIfAsked({
    argv: process.argv,
    defaultApp: (process as { defaultApp?: boolean }).defaultApp === true,
    isElectron: typeof process.versions.electron === 'string',
    execPath: process.execPath,
    cliPath: fileURLToPath(new URL('../cli/capture-desk.js', mainModuleUrl)),
    env: process.env,
  });
  if (code !== null) process.exit(code);
}
