import { existsSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AudioSupervisor } from '../core/audio/audio-supervisor.js';
import { findManualDir } from '../core/handlers/manual.js';
import { createCore } from '../core/app.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { LOG_FILE_NAMES, openAppLog } from '../core/logs/app-log.js';
import { serialportLister } from '../core/serial/serialport-lister.js';
import { keytarKeychain } from '../core/secrets/keychain.js';
import { overlayKeychain } from '../core/secrets/overlay-keychain.js';
import { API_KEY_ENV, HMAC_KEY_ENV } from '../core/secrets/project-keys.js';
import { serialportOpener } from '../core/serial/serialport-opener.js';
import { startBrowserShell } from '../server/browser-shell.js';
import { loadTlsFiles, machineNames, selfSignedCertificate, type TlsMaterial } from '../server/tls-cert.js';
import { createSessionToken } from '../server/token.js';
import { parsePort, UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { serveKeys } from './serve-keys.js';

export const SERVE_USAGE = `Usage: capture-desk serve [--port N] [--host ADDR] [--data-dir DIR]
                         [--self-signed | --cert FILE --key FILE | --insecure-http]
                         [--api-key K | --api-key-file FILE] [--hmac-key K]

Starts Capture Desk's core and serves its user interface to a browser. Prints the URL to open,
including a random session token, on stdout as soon as it listens (and, under TLS, the
certificate's SHA-256 fingerprint on the next line); nothing else goes to stdout. The rest goes to
stderr: the address other machines use ("Reachable from other machines at …"), advice and
warnings in sentences, and the log as JSON lines. Opening that URL signs the browser in with a
session cookie and moves it to a URL without the token; without the token or that cookie nothing
is served (HTTP 401).

Options:
  --port N             TCP port to listen on (default 8765; 0 picks a free port)
  --host ADDR          address to bind (default 127.0.0.1, this machine only). Use 0.0.0.0 to let
                       other machines connect, e.g. a lab station used from a laptop: that needs
                       --self-signed or --cert/--key (or, knowingly, --insecure-http)
  --data-dir DIR       where samples, settings and the upload queue live
                       (default: ${defaultDataDir()})

Encryption (HTTPS and WSS):
  --self-signed        make a certificate for this machine's names and addresses on first use and
                       keep it in <data dir>/tls (the key readable by you only); later starts reuse
                       it. Compare the printed fingerprint with the one your browser shows before
                       you accept the certificate: if they match, you reached this station
  --cert FILE          PEM certificate (chain) to serve HTTPS with; needs --key
  --key FILE           its PEM private key
  --insecure-http      serve other machines over plain HTTP anyway: the session token and the
                       project's keys cross the network in clear text (warned on every start)

Project keys (held in memory for this run, never written to a file; the Settings page says where
each key comes from and can replace it for the session):
  --api-key K          the project's API key (default: $${API_KEY_ENV}, then the OS keychain).
                       On a shared machine prefer the variable or --api-key-file: other users can
                       see command lines
  --api-key-file FILE  read the API key from FILE, which must be readable by you only (chmod 600)
  --hmac-key K         the project's HMAC key (default: $${HMAC_KEY_ENV}, then the OS keychain)
  -h, --help           show this help
`;

/** Nothing sent to these leaves this machine: plain HTTP is fine there. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export async function serveCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, SERVE_USAGE, {
    host: { type: 'string', default: '127.0.0.1' },
    ...strings('port', 'data-dir', 'cert', 'key', 'api-key', 'api-key-file', 'hmac-key'),
    ...booleans('self-signed', 'insecure-http'),
  });
  if (!parsed) return 0;
  const { values } = parsed;
  const port = parsePort(values.port, 8765);
  const host = values.host;
  if (!host.trim()) throw new UsageError('--host must not be empty.');
  if ((values.cert === undefined) !== (values.key === undefined)) throw new UsageError('--cert and --key go together: give both (PEM files).');
  const ownCert = values.cert !== undefined;
  if (ownCert && values['self-signed']) throw new UsageError('give either --self-signed or --cert/--key, not both.');
  const tlsWanted = ownCert || Boolean(values['self-signed']);
  if (tlsWanted && values['insecure-http']) throw new UsageError('--insecure-http contradicts --self-signed and --cert/--key: leave it out to serve HTTPS.');
  const loopback = isLoopback(host);
  if (!loopback && !tlsWanted && !values['insecure-http']) {
    throw new UsageError(
      `--host ${host} lets other machines connect, so serve refuses plain HTTP there (the session token and the project's keys would cross the network unencrypted): ` +
        'add --self-signed (or --cert FILE --key FILE), or --insecure-http if you accept that.',
    );
  }
  await checkHost(host);
  const held = await serveKeys({ apiKey: values['api-key'], hmacKey: values['hmac-key'], apiKeyFile: values['api-key-file'] });
  let tls: TlsMaterial | undefined;
  if (ownCert) {
    try {
      tls = await loadTlsFiles(values.cert!, values.key!);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }

  const dataDir = await ensureDataDir(values['data-dir'] ?? defaultDataDir());
  // A headless station's log is what its user can send: stderr and <data dir>/logs/serve.log.
  const appLog = openAppLog({ dataDir, fileName: LOG_FILE_NAMES.browser, base: { shell: 'browser' } });
  const log = appLog.log;
  const token = createSessionToken();
  // Never meant to reach a log line; if one ever does, it is written as «redacted».
  appLog.secrets.add(token);
  for (const k of held.values()) appLog.secrets.add(k.secret);
  if (values['self-signed']) {
    try {
      const made = await selfSignedCertificate(dataDir, { names: machineNames([host]) });
      tls = made;
      if (made.created) {
        log.info('made a self-signed certificate', { certificate: made.certPath, names: made.names, fingerprint: made.fingerprint, replaced: made.replaced });
        process.stderr.write(`Made a self-signed certificate for ${made.names.join(', ')} in ${made.certPath}${made.replaced ? ` (the one before was replaced: ${made.replaced})` : ''}; later starts reuse it.\n`);
      } else if (made.missing.length > 0) {
        log.warn('the self-signed certificate does not name all of this machine\'s addresses', { missing: made.missing, certificate: made.certPath });
        process.stderr.write(
          `The certificate in ${made.certPath} does not name ${made.missing.join(', ')} (it was made for ${made.names.join(', ')}): a browser using those will also warn about the name. ` +
            'Delete that folder to make a new one (its fingerprint changes).\n',
        );
      }
    } catch (err) {
      await appLog.close();
      throw err;
    }
  }
  const insecure = !loopback && !tlsWanted;
  const shellWarning = insecure
    ? `Not encrypted: this page is served to other machines over plain HTTP (--insecure-http), so the session token and any key typed here cross the network in clear text. Restart serve with --self-signed to encrypt it.`
    : null;
  if (shellWarning) log.warn('serving other machines over plain HTTP (--insecure-http): the session token and keys cross the network unencrypted', { host });
  // Keys given to this run answer from memory, for whichever project Settings names; the
  // keychain (if there is one) is never asked for them and never given them.
  const keychain = held.size > 0 ? overlayKeychain(keytarKeychain(), held, { slot: (account) => account.slice(account.lastIndexOf(':') + 1) }) : keytarKeychain();
  for (const [kind, k] of held) log.info('project key held in memory for this run', { kind, from: k.origin.from, name: k.origin.name });
  const core = await createCore({
    dataDir,
    shell: 'browser',
    hardware: { ports: serialportLister, keychain, serial: serialportOpener, audio: new AudioSupervisor({ log }) },
    log,
    secrets: appLog.secrets,
    shellWarning,
    manualDir: findManualDir(import.meta.url),
  });
  const rendererDir = findRendererDir();
  let shell;
  try {
    shell = await startBrowserShell({ core, rendererDir, token, host, port, log, tls });
  } catch (err) {
    await core.close();
    await appLog.close();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') throw new UsageError(`Port ${port} is already in use. Pick another with --port, or --port 0 for any free port.`);
    // checkHost said it first; these stay for an address that went away meanwhile.
    if (e.code === 'EADDRNOTAVAIL') throw new UsageError(noSuchAddress(host, e.code));
    if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') throw new UsageError(unknownHost(host, e.code));
    throw err;
  }
  const wildcard = host === '0.0.0.0' || host === '::';
  // The first stdout line is the URL: scripts and tests read it. Under TLS the fingerprint follows.
  process.stdout.write((wildcard ? shell.url.replace(/\/\/[^/]+:/, '//127.0.0.1:') : shell.url) + '\n');
  if (tls) {
    process.stdout.write(`SHA-256 fingerprint: ${tls.fingerprint}\n`);
    process.stderr.write('Before you accept the certificate in a browser, check that it shows this SHA-256 fingerprint: then you reached this station, not something in between.\n');
  }
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

/**
 * --host names an address this computer has, checked before the core starts: listen's own
 * refusals came only after it, as "getaddrinfo ENOTFOUND nosuchhost.invalid" or
 * "listen EADDRNOTAVAIL …", which say neither what is wrong nor what to give instead.
 */
async function checkHost(host: string): Promise<void> {
  let found: string[];
  try {
    found = (await lookup(host, { all: true })).map((a) => a.address);
  } catch (err) {
    throw new UsageError(unknownHost(host, (err as NodeJS.ErrnoException).code ?? 'lookup failed'));
  }
  const own = new Set(ownAddresses().map(bare));
  const local = (a: string) => isLoopback(a) || a === '0.0.0.0' || a === '::' || own.has(bare(a));
  // listen binds the first address the name resolves to.
  const first = found[0];
  if (first !== undefined && !local(first)) throw new UsageError(noSuchAddress(host === first ? host : `${host} (${first})`, 'EADDRNOTAVAIL'));
}

function unknownHost(host: string, code: string): string {
  const what = code === 'EAI_AGAIN' ? 'could not be looked up (no name server answered)' : 'is not a host name this computer knows';
  return `--host ${host} ${what}. ${giveInstead()} (${code})`;
}

function noSuchAddress(host: string, code: string): string {
  return `--host ${host}: this computer has no such address, so serve cannot listen there. ${giveInstead()} (${code})`;
}

function giveInstead(): string {
  const mine = ownAddresses().filter((a) => !a.startsWith('fe80:') && a !== '127.0.0.1' && a !== '::1');
  return `Give --host 127.0.0.1 (this computer only), 0.0.0.0 (every address it has)${mine.length ? `, or one of its addresses: ${mine.slice(0, 8).join(', ')}` : ''}.`;
}

/** This computer's network interfaces' addresses, loopback included. */
function interfaceAddresses() {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a): a is NonNullable<typeof a> => Boolean(a));
}

const ownAddresses = (): string[] => interfaceAddresses().map((a) => a.address);

/** An IPv6 address without its zone ("fe80::1%eth0"), lower case. */
function bare(a: string): string {
  return a.replace(/%.*$/, '').toLowerCase();
}

function lanAddresses(): string[] {
  return interfaceAddresses()
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/** The built renderer sits in dist/renderer; this code runs from dist/cli or one of its chunk folders. */
function findRendererDir(): string {
  for (const rel of ['../renderer/', '../../renderer/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new Error('The user interface is not built (dist/renderer is missing): run "npm run build" first.');
}
