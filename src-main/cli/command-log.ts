import { stderrLogger, type Logger } from '../core/log.js';

/**
 * The log of a command. With --verbose, every event as a JSON line on stderr (for a bug report or
 * a script's log). Without it, only faults, as a sentence: what a person must act on the command
 * says itself (progress, summary, "Uploads stopped: …"); the log's warnings repeat it for machines.
 */
export function commandLogger(command: string, verbose: boolean): Logger {
  if (verbose) return stderrLogger({ command });
  const error = (msg: string, fields?: Record<string, unknown>) => {
    const why = typeof fields?.error === 'string' ? ` (${fields.error})` : '';
    process.stderr.write(`${command}: ${msg}${why}; run it again with --verbose for the details.\n`);
  };
  return { info() {}, warn() {}, error };
}
