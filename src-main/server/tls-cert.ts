import { execFile } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, type KeyObject, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { chmod, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import { promisify } from 'node:util';
import { makeDirs } from '../core/fs/make-dirs.js';

const run = promisify(execFile);

/** A certificate and its private key, as the HTTPS server takes them, with what people compare. */
export interface TlsMaterial {
  cert: string;
  key: string;
  /** SHA-256 of the (first) certificate, `AB:CD:…`: what the browser's certificate viewer shows. */
  fingerprint: string;
  /** The names and addresses the certificate is for (its subjectAltName). */
  names: string[];
  validTo: Date;
}

export interface SelfSignedResult extends TlsMaterial {
  certPath: string;
  keyPath: string;
  /** True when this start made it; false when an earlier one's was reused. */
  created: boolean;
  /** Why an existing certificate was replaced, if one was. */
  replaced: string | null;
  /** This machine's names and addresses the certificate does not name (it was made when they were different). */
  missing: string[];
}

/** `<data dir>/tls`: the self-signed certificate and its key (owner-only, 0700 / 0600). */
export function tlsDirOf(dataDir: string): string {
  return join(dataDir, 'tls');
}

export const SELF_SIGNED_CERT = 'self-signed-cert.pem';
export const SELF_SIGNED_KEY = 'self-signed-key.pem';
/** Browsers and Apple's platforms refuse server certificates valid for longer than this. */
const VALID_DAYS = 825;
/** A certificate this close to its end is made again rather than reused. */
const RENEW_BEFORE_MS = 7 * 24 * 3600_000;

/**
 * Reads a PEM certificate and key given with --cert/--key and checks that they belong together.
 * Each file is read on its own first, so a refusal names the file at fault and the form it should
 * have: handed to the TLS context together, a certificate given as the key came back as OpenSSL's
 * "error:1E08010C:DECODER routines::unsupported", and a key of another type than the
 * certificate's was not noticed at all.
 */
export async function loadTlsFiles(certPath: string, keyPath: string): Promise<TlsMaterial> {
  const [cert, key] = await Promise.all([
    readFile(certPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new Error(`Cannot read the certificate ${certPath} (--cert): ${readProblem(err)}.`);
    }),
    readFile(keyPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new Error(`Cannot read the private key ${keyPath} (--key): ${readProblem(err)}.`);
    }),
  ]);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch (err) {
    const holds = pemKinds(cert);
    const what = holds.includes('key') ? 'holds a private key, not a certificate: give the certificate with --cert and its key with --key'
      : !holds.length && /[\u0000-\u0008\ufffd]/.test(cert) ? 'is binary (DER?), not PEM text: convert it with "openssl x509 -inform DER -in FILE -out cert.pem"'
      : 'could not be read as a PEM certificate (the text between -----BEGIN CERTIFICATE----- and -----END CERTIFICATE----- lines)';
    throw new Error(`The certificate ${certPath} (--cert) ${what}. (${detail(err)})`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    const holds = pemKinds(key);
    const what = holds.includes('encrypted') ? 'is protected by a passphrase, which serve cannot ask for: write it without one ("openssl pkey -in FILE -out key.pem") and keep that file readable by you only'
      : holds.includes('certificate') && !holds.includes('key') ? 'holds a certificate, not a private key: give the key that was made with the certificate'
      : !holds.length && /[\u0000-\u0008\ufffd]/.test(key) ? 'is binary (DER?), not PEM text: convert it with "openssl pkey -inform DER -in FILE -out key.pem"'
      : 'could not be read as a PEM private key (a -----BEGIN PRIVATE KEY----- block, or RSA/EC PRIVATE KEY)';
    throw new Error(`The private key ${keyPath} (--key) ${what}. (${detail(err)})`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new Error(`The private key ${keyPath} does not belong to the certificate ${certPath}: give the key that was made with that certificate.`);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    const why = (err as Error).message;
    throw new Error(/mismatch/i.test(why) ? `The private key ${keyPath} does not belong to the certificate ${certPath}.` : `Cannot serve HTTPS with the certificate ${certPath} and the key ${keyPath}: check that both are PEM files made together. (${detail(err)})`);
  }
  return material(cert, key, x509);
}

/** The kinds of PEM block a file holds, from its BEGIN lines. */
function pemKinds(text: string): Array<'certificate' | 'key' | 'encrypted'> {
  const kinds: Array<'certificate' | 'key' | 'encrypted'> = [];
  if (/-----BEGIN (X509 |TRUSTED )?CERTIFICATE-----/.test(text)) kinds.push('certificate');
  if (/-----BEGIN ([A-Z]+ )?PRIVATE KEY-----/.test(text)) kinds.push('key');
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) kinds.push('encrypted');
  return kinds;
}

/** OpenSSL's words, kept at the end for whoever knows them: the sentence before them is the message. */
function detail(err: unknown): string {
  return (err as Error).message.replace(/^error:[0-9A-F]+:/, '').trim();
}

function readProblem(err: NodeJS.ErrnoException): string {
  const said: Record<string, string> = { ENOENT: 'there is no such file', EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'it is a folder, not a file' };
  return err.code && said[err.code] ? `${said[err.code]} (${err.code})` : err.message;
}

function material(cert: string, key: string, x509: X509Certificate): TlsMaterial {
  return { cert, key, fingerprint: x509.fingerprint256, names: namesOf(x509), validTo: new Date(x509.validTo) };
}

/** `DNS:a, IP Address:1.2.3.4` → `['a', '1.2.3.4']` */
function namesOf(x509: X509Certificate): string[] {
  return (x509.subjectAltName ?? '')
    .split(/,\s*/)
    .map((s) => s.replace(/^(DNS|IP Address):/, '').trim())
    .filter(Boolean)
    .map(canonical);
}

/** One spelling per name: lower case, IPv6 compressed (`0:0:0:0:0:0:0:1` → `::1`). */
function canonical(name: string): string {
  const n = name.toLowerCase();
  return isIP(n) === 6 ? new URL(`http://[${n}]`).hostname.slice(1, -1) : n;
}

/** This machine's names and addresses: what a browser elsewhere may type to reach it. */
export function machineNames(extra: string[] = []): string[] {
  const names = new Set<string>(['localhost', '127.0.0.1', '::1']);
  const host = hostname().toLowerCase();
  if (/^[a-z0-9.-]+$/.test(host)) {
    names.add(host);
    if (!host.includes('.')) names.add(`${host}.local`); // mDNS: how lab stations are often reached
  }
  for (const a of Object.values(networkInterfaces()).flat()) {
    if (!a || a.internal) continue;
    if (a.family === 'IPv6' && /^fe80:/i.test(a.address)) continue; // link-local: not usable in a URL without a zone
    names.add(canonical(a.address));
  }
  for (const e of extra) {
    const n = e.toLowerCase().replace(/^\[|\]$/g, '');
    if (n && n !== '0.0.0.0' && n !== '::' && (isIP(n) || /^[a-z0-9.-]+$/.test(n))) names.add(canonical(n));
  }
  return [...names];
}

export interface SelfSignedOptions {
  /** Names and addresses to put in a new certificate (default {@link machineNames}). */
  names?: string[];
  /** The openssl command (default `openssl` on the PATH). */
  openssl?: string;
  now?: () => Date;
}

/**
 * The certificate `serve --self-signed` presents: made on first use for this machine's names and
 * addresses (an ECDSA P-256 key from Node's crypto, the certificate signed by the `openssl`
 * command), kept in `<data dir>/tls` with the key readable by the owner only, and reused on every
 * later start so its fingerprint stays the one people have checked. It is made again only when it
 * is missing, unreadable, does not match its key, or is about to expire.
 */
export async function selfSignedCertificate(dataDir: string, options: SelfSignedOptions = {}): Promise<SelfSignedResult> {
  const dir = tlsDirOf(dataDir);
  const certPath = join(dir, SELF_SIGNED_CERT);
  const keyPath = join(dir, SELF_SIGNED_KEY);
  const now = options.now?.() ?? new Date();
  const wanted = options.names ?? machineNames();
  await makeDirs(dir, 0o700);
  await chmod(dir, 0o700);

  const existing = await readExisting(certPath, keyPath, now);
  if (existing.ok) {
    // Owner-only, whatever happened to the file since (a copy, a restore from backup).
    if (((await stat(keyPath)).mode & 0o077) !== 0) await chmod(keyPath, 0o600);
    const m = existing.material;
    return { ...m, certPath, keyPath, created: false, replaced: null, missing: wanted.filter((n) => !m.names.includes(canonical(n))) };
  }

  const m = await makeCertificate(dir, certPath, keyPath, wanted, options.openssl ?? 'openssl');
  return { ...m, certPath, keyPath, created: true, replaced: existing.why, missing: [] };
}

type Existing = { ok: true; material: TlsMaterial } | { ok: false; why: string | null };

async function readExisting(certPath: string, keyPath: string, now: Date): Promise<Existing> {
  let cert: string;
  let key: string;
  try {
    [cert, key] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  } catch (err) {
    return { ok: false, why: (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : `it could not be read (${(err as Error).message})` };
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    return { ok: false, why: 'it was not a readable certificate' };
  }
  try {
    if (!x509.checkPrivateKey(createPrivateKey(key))) return { ok: false, why: 'its private key did not match it' };
  } catch {
    return { ok: false, why: 'its private key was not readable' };
  }
  if (new Date(x509.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS) return { ok: false, why: `it expired or was about to (valid to ${x509.validTo})` };
  return { ok: true, material: material(cert, key, x509) };
}

async function makeCertificate(dir: string, certPath: string, keyPath: string, names: string[], openssl: string): Promise<TlsMaterial> {
  // Made in a private folder beside the final place, then renamed in: a crash leaves no half pair.
  const work = await mkdtemp(join(dir, '.new-'));
  try {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const newKey = join(work, SELF_SIGNED_KEY);
    const newCert = join(work, SELF_SIGNED_CERT);
    const config = join(work, 'openssl.cnf');
    await writeFile(newKey, key, { mode: 0o600, flag: 'wx' });
    await chmod(newKey, 0o600);
    await writeFile(config, opensslConfig(names), { mode: 0o600 });
    try {
      await run(openssl, ['req', '-x509', '-new', '-config', config, '-key', newKey, '-out', newCert, '-days', String(VALID_DAYS), '-sha256'], { timeout: 30_000 });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw new Error('--self-signed needs the openssl command, which was not found: install OpenSSL, or pass your own certificate with --cert FILE --key FILE.');
      throw new Error(`openssl could not make the certificate: ${(e.stderr ?? e.message).trim().split('\n')[0]}`);
    }
    const cert = await readFile(newCert, 'utf8');
    const m = material(cert, key, new X509Certificate(cert));
    await rename(newKey, keyPath);
    await rename(newCert, certPath);
    return m;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function opensslConfig(names: string[]): string {
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '') || 'localhost';
  const alt = names.map((n, i) => (isIP(n) ? `IP.${i + 1} = ${n}` : `DNS.${i + 1} = ${n}`));
  return [
    '[req]',
    'distinguished_name = dn',
    'x509_extensions = v3',
    'prompt = no',
    '[dn]',
    `CN = Capture Desk on ${host}`,
    'O = Capture Desk (self-signed)',
    '[v3]',
    'subjectAltName = @alt',
    'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature',
    'extendedKeyUsage = serverAuth',
    'subjectKeyIdentifier = hash',
    '[alt]',
    ...alt,
    '',
  ].join('\n');
}
