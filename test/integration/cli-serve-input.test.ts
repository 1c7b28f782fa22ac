// `capture-desk serve` given a --host, --port, --cert or --key it cannot use: each is refused with
// exit 2 before the core starts, in a sentence naming the flag and what to give instead. These
// came out as "getaddrinfo ENOTFOUND …", "listen EADDRNOTAVAIL …" and
// "error:1E08010C:DECODER routines::unsupported", and --port "" served on a random port.
import { generateKeyPairSync } from 'node:crypto';
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../src-main/server/tls-cert.js';
import { runCli } from '../support/cli.js';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-serve-input-');
const serve = (args: string[]) => runCli(['serve', '--data-dir', join(root(), 'data'), ...args], { timeoutMs: 20_000 });
const GIVE = 'Give --host 127.0.0.1 (this computer only), 0.0.0.0 (every address it has)';

describe('serve refuses input it cannot use, before starting', () => {
  it('--host a name nobody knows, or an address this computer does not have', async () => {
    const unknown = await serve(['--host', 'nosuchhost.invalid', '--insecure-http', '--port', '0']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^capture-desk serve: --host nosuchhost\.invalid (is not a host name this computer knows|could not be looked up \(no name server answered\))\. /);
    expect(unknown.stderr).toContain(GIVE);
    expect(unknown.stderr).not.toMatch(/getaddrinfo|"level"/);

    const foreign = await serve(['--host', '8.8.8.8', '--insecure-http', '--port', '0']);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toMatch(/^capture-desk serve: --host 8\.8\.8\.8: this computer has no such address, so serve cannot listen there\. Give --host 127\.0\.0\.1/);
    expect(foreign.stderr).not.toMatch(/listen EADDRNOTAVAIL|"level"/);
    expect(foreign.stdout).toBe('');
  });

  it('--port empty or not a number (an empty value used to pick a random port)', async () => {
    for (const [value, said] of [['', 'got an empty value.'], [' ', 'got an empty value.'], ['eighty', 'got "eighty".']] as const) {
      const r = await serve(['--port', value]);
      expect(r.code, value).toBe(2);
      expect(r.stderr, value).toContain(`--port must be a whole number from 0 to 65535 (0 picks a free port), ${said}`);
      expect(r.stdout, value).toBe('');
    }
  });

  it('--cert/--key files that are not what they are given as: names the file and the form expected', async () => {
    const made = await selfSignedCertificate(join(root(), 'made'), { names: ['localhost', '127.0.0.1'] });
    const cert = join(root(), 'c.pem');
    const key = join(root(), 'k.pem');
    await copyFile(made.certPath, cert);
    await copyFile(made.keyPath, key);
    const der = join(root(), 'c.der');
    await writeFile(der, Buffer.from(made.cert.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64'));
    const other = join(root(), 'other.pem');
    // Another type than the certificate's: the TLS context took it without a word.
    await writeFile(other, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));

    const cases: Array<[string, string, string]> = [
      [cert, cert, `The private key ${cert} (--key) holds a certificate, not a private key: give the key that was made with the certificate.`],
      [key, key, `The certificate ${key} (--cert) holds a private key, not a certificate: give the certificate with --cert and its key with --key.`],
      [der, key, `The certificate ${der} (--cert) is binary (DER?), not PEM text`],
      [cert, other, `The private key ${other} does not belong to the certificate ${cert}`],
      [cert, join(root(), 'gone.pem'), `Cannot read the private key ${join(root(), 'gone.pem')} (--key): there is no such file (ENOENT).`],
    ];
    for (const [c, k, said] of cases) {
      const r = await serve(['--port', '0', '--cert', c, '--key', k]);
      expect(r.code, said).toBe(2);
      expect(r.stderr, said).toContain(`capture-desk serve: ${said}`);
      expect(r.stderr, said).not.toMatch(/^capture-desk serve: [^\n]*error:[0-9A-F]{8}/);
    }
  });
});
