import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AudioSupervisor } from '../core/audio/audio-supervisor.js';
import { createCore } from '../core/app.js';
import { defaultDataDir } from '../core/data-dir.js';
import { LOG_FILE_NAMES, openAppLog } from '../core/logs/app-log.js';
import { serialportLister } from '../core/serial/serialport-lister.js';
import { keytarKeychain } from '../core/secrets/keychain.js';
import { serialportOpener } from '../core/serial/serialport-opener.js';
import { startBrowserShell } from '../server/browser-shell.js';
import { createSessionToken } from '../server/token.js';
import { parsePort, UsageError } from './args.js';

export const SERVE_USAGE = `Usage: capture-desk serve [--port N] [--host ADDR] [--data-dir DIR]

Starts Capture Desk's core and serves its user interface to a browser. Prints the URL to open,
including a random session token, on stdout as soon as it listens. Without the token nothing is
served (HTTP 401).

Options:
  --port N         TCP port to listen on (default 8765; 0 picks a free port)
  --host ADDR      address to bind (default 127.0.0.1, this machine only). Use 0.0.0.0 to let
                   other machines connect, e.g. a lab station used from a laptop; the token is
                   still required on every connection
  --data-dir DIR   where samples, settings and the upload queue live
                   (default: ${defaultDataDir()})
  -h, --help       show this help
`;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const port = parsePort(values.port, 8765);
  const host = values.host;
  if (!host.trim()) throw new UsageError('--host must not be empty.');
  const dataDir = values['data-dir'] ?? defaultDataDir();
  // A headless station's log is what its user can send: stderr and <data dir>/logs/serve.log.
  const appLog = openAppLog({ dataDir, fileName: LOG_FILE_NAMES.browser, base: { shell: 'browser' } });
  const log = appLog.log;
  const core = await createCore({
    dataDir,
    shell: 'browser',
    hardware: { ports: serialportLister, keychain: keytarKeychain(), serial: serialportOpener, audio: new AudioSupervisor({ log }) },
    log,
    secrets: appLog.secrets,
  });
  const rendererDir = findRendererDir();
  let shell;
  try {
    shell = await startBrowserShell({ core, rendererDir, token: createSessionToken(), host, port, log });
  } catch (err) {
    await core.close();
    await appLog.close();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`Port ${port} is already in use. Pick another with --port, or --port 0 for any free port.`);
    throw err;
  }
  const wildcard = host === '0.0.0.0' || host === '::';
  // The first stdout line is the URL: scripts and tests read it.
  process.stdout.write((wildcard ? shell.url.replace(/\/\/[^/]+:/, '//127.0.0.1:') : shell.url) + '\n');
  if (wildcard) {
    for (const addr of lanAddresses()) process.stderr.write(`Reachable from other machines at ${shell.url.replace(/\/\/[^/]+:/, `//${addr}:`)}\n`);
    process.stderr.write('Anyone with this URL can use this station: share it only with people who should.\n');
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // Closing waits for recordings to be saved and uploads to settle; if that hangs (a device that
  // never answers), a second signal or 15 s end the process anyway rather than leave it running
  // unseen. Samples are safe either way: files are written before their rows say they exist.
  const force = (why: string) => () => {
    log.error('shutdown did not finish; exiting', { why });
    process.exit(1);
  };
  const deadline = setTimeout(force('15 s passed'), 15_000);
  deadline.unref();
  process.once('SIGINT', force('second signal'));
  process.once('SIGTERM', force('second signal'));
  await shell.close();
  await core.close();
  await appLog.close();
  clearTimeout(deadline);
  // Everything is closed; whatever still holds the event loop now is a leak: name it, then go.
  setTimeout(() => {
    log.warn('still open after shutdown; exiting anyway', { resources: process.getActiveResourcesInfo().join(', ') });
    process.exit(0);
  }, 3000).unref();
  return 0;
}

function lanAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);
}

/** The built renderer sits in dist/renderer; this code runs from dist/cli or one of its chunk folders. */
function findRendererDir(): string {
  for (const rel of ['../renderer/', '../../renderer/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new Error('The user interface is not built (dist/renderer is missing): run "npm run build" first.');
}
