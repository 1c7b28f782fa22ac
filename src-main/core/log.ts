/** Where the core writes what happened. Injected so tests can read it and the CLI can keep stdout clean. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

type Level = 'info' | 'warn' | 'error';

/**
 * One JSON line per event: greppable, and a field can never smuggle a newline into a log.
 * `redact` sees every string value (message and fields, however deep) before it is written; it
 * works on values, not on the finished line, so the line stays valid JSON whatever it replaces.
 */
export function createLogger(write: (line: string) => void, base: Record<string, unknown> = {}, redact?: (text: string) => string): Logger {
  const replacer = redact ? (_key: string, value: unknown) => (typeof value === 'string' ? redact(value) : value) : undefined;
  const emit = (level: Level, msg: string, fields?: Record<string, unknown>) =>
    write(JSON.stringify({ t: new Date().toISOString(), level, msg, ...base, ...fields }, replacer) + '\n');
  return {
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

export function stderrLogger(base?: Record<string, unknown>): Logger {
  return createLogger((line) => process.stderr.write(line), base);
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
