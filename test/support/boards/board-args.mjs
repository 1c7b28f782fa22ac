// The command line of every board script: --port, the board's end of the PTY pair (required), and
// the board's own options, all strings but for the on/off flags. One parser, so every board reads
// its options alike and refuses a missing --port in the same words.
import { parseArgs } from 'node:util';

/** `defaults`: option name → its default (a string; a boolean for a flag; undefined for none). */
export function boardArgs(defaults) {
  const options = { port: { type: 'string' } };
  for (const [name, value] of Object.entries(defaults)) {
    options[name] = typeof value === 'boolean' ? { type: 'boolean', default: value } : value === undefined ? { type: 'string' } : { type: 'string', default: value };
  }
  const { values } = parseArgs({ options });
  if (!values.port) throw new Error('--port is required');
  return values;
}
