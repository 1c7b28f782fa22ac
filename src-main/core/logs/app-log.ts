import { join } from 'node:path';
import { createLogger, type Logger } from '../log.js';
import { KnownSecrets } from '../secrets/known-secrets.js';
import { RotatingLogFile, type RotatingFileOptions } from './rotating-file.js';

/** `<data dir>/logs`: what Help → Open logs folder opens and what diagnostics name. */
export function logsDirOf(dataDir: string): string {
  return join(dataDir, 'logs');
}

/**
 * One file per shell, so the desktop app, a `serve` and a `connect` beside it never rotate each
 * other's file.
 */
export const LOG_FILE_NAMES = { electron: 'capture-desk.log', browser: 'serve.log', connect: 'connect.log' } as const;

export interface AppLogOptions {
  dataDir: string;
  fileName: string;
  base?: Record<string, unknown>;
  /** Where each line goes besides the file (default stderr); also told once if the file fails. */
  stderr?: (text: string) => void;
  /** Keys to keep out of every line; pass the same instance to createCore so it learns the keys. */
  secrets?: KnownSecrets;
  maxBytes?: RotatingFileOptions['maxBytes'];
  keep?: RotatingFileOptions['keep'];
}

export interface AppLog {
  log: Logger;
  secrets: KnownSecrets;
  logsDir: string;
  file: RotatingLogFile;
  /** Writes what is queued and closes the file; lines logged afterwards go to stderr only. */
  close(): Promise<void>;
}

/**
 * The desktop app's and `serve`'s logger: JSON lines to stderr and to a rotating file in
 * `<data dir>/logs`, every string in them redacted against the keys the core has held. The file
 * can only be reached through this logger, so nothing unredacted is ever written to it. A data
 * dir whose logs folder cannot be written is said once on stderr and the app goes on.
 */
export function openAppLog(opts: AppLogOptions): AppLog {
  const stderr = opts.stderr ?? ((text: string) => void process.stderr.write(text));
  const secrets = opts.secrets ?? new KnownSecrets();
  const logsDir = logsDirOf(opts.dataDir);
  const file = new RotatingLogFile({
    dir: logsDir,
    name: opts.fileName,
    maxBytes: opts.maxBytes,
    keep: opts.keep,
    onError: (message) => stderr(`capture-desk: ${message}\n`),
  });
  const log = createLogger(
    (line) => {
      stderr(line);
      file.write(line);
    },
    opts.base,
    (text) => secrets.redact(text),
  );
  // A crash or process.exit() leaves no event-loop turn for the buffered lines: write them now.
  const onExit = () => file.flushSync();
  process.on('exit', onExit);
  return {
    log,
    secrets,
    logsDir,
    file,
    async close() {
      process.off('exit', onExit);
      await file.close();
    },
  };
}
