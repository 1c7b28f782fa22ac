// collectDiagnostics with fakes of its sources: each part fails on its own, nothing secret leaves.
import { describe, expect, it } from 'vitest';
import type { QueueStatus, Settings } from '../../src-main/core/contract/contract.js';
import { collectDiagnostics, type DiagnosticsSources } from '../../src-main/core/diagnostics/collect.js';
import { Diagnostics } from '../../src-main/core/contract/diagnostics-schema.js';
import { KnownSecrets } from '../../src-main/core/secrets/known-secrets.js';

const KEY = 'ei_unit_diag_0123456789abcdef';
const queue: QueueStatus = { paused: true, pausedReason: `The platform refused the API key ${KEY}.`, online: true, inFlight: 0, counts: { local: 2, queued: 1, uploading: 0, uploaded: 5, failed: 0, rejected: 1 } };
const settings = { ingestionUrl: 'https://user:hunter2@ingest.example/api?token=abc', managementUrl: 'https://studio.example', projectId: 7, uploadConcurrency: 2, qualityHold: 'errors' } as Settings;

function sources(over: Partial<DiagnosticsSources> = {}): DiagnosticsSources {
  const secrets = new KnownSecrets();
  secrets.add(KEY);
  return {
    app: { name: 'Capture Desk', version: '1.2.3', shell: 'browser' },
    dataDir: '/data',
    logsDir: '/data/logs',
    serialPorts: async () => [{ path: '/dev/ttyACM0', friendlyName: 'Nano 33', vendorId: '2341', productId: '805a' }, { path: '/dev/pts/4', friendlyName: '/dev/pts/4 (added by path)' }],
    addedPaths: () => ['/dev/pts/4'],
    audioDevices: () => ({ devices: [{ id: 'default', name: 'System default input', default: true }], problem: null }),
    keyStatus: async () => ({ apiKey: 'set', hmacKey: 'not set', keychainProblem: null, apiKeySource: { from: 'keychain', name: null, stored: true }, hmacKeySource: { from: 'keychain', name: null, stored: true } }),
    queue: () => queue,
    flaggedSamples: () => 3,
    settings: () => settings,
    secrets,
    ...over,
  };
}

describe('collectDiagnostics', () => {
  it('reports every part, counts samples, strips credentials from URLs and redacts known keys', async () => {
    const d = await collectDiagnostics(sources());
    expect(Diagnostics.parse(d)).toEqual(d);
    expect(d.report.serial.ports.map((p) => [p.path, p.addedByPath])).toEqual([['/dev/ttyACM0', false], ['/dev/pts/4', true]]);
    expect(d.report.samples).toEqual({ total: 9, byState: queue.counts, flagged: 3 });
    expect(d.report.settings.ingestionUrl).toBe('https://ingest.example/api');
    expect(d.report.queue.pausedReason).toBe('The platform refused the API key «redacted».');
    expect(JSON.stringify(d)).not.toContain(KEY);
    expect(JSON.stringify(d)).not.toContain('hunter2');
    expect(d.text).toContain('  /dev/pts/4  /dev/pts/4 (added by path)\n');
    expect(d.text).toContain('Nano 33 [2341:805a]');
    expect(d.text).toContain('Samples       9 in all: 2 local, 1 queued, 0 uploading, 5 uploaded, 0 failed, 1 rejected; 3 flagged');
  });

  it('says the keychain gave no answer instead of waiting for a locked one', async () => {
    const d = await collectDiagnostics(sources({ keyStatus: () => new Promise(() => {}), timeoutMs: 50 }));
    expect(d.report.keychain).toEqual({ available: false, apiKey: 'unknown', hmacKey: 'unknown', problem: expect.stringContaining('no answer from the keychain') });
    expect(d.text).toContain('Keychain      NOT available: no answer from the keychain');
  });

  it('reports an unusable keychain and a failed microphone listing as problems, not failures', async () => {
    const d = await collectDiagnostics(
      sources({
        keyStatus: async () => ({ apiKey: 'unknown', hmacKey: 'unknown', keychainProblem: 'No keychain: install gnome-keyring.', apiKeySource: { from: 'keychain', name: null, stored: true }, hmacKeySource: { from: 'keychain', name: null, stored: true } }),
        audioDevices: () => ({ devices: [], problem: 'The audio capture process did not answer within 20 s.' }),
      }),
    );
    expect(d.report.keychain).toMatchObject({ available: false, problem: 'No keychain: install gnome-keyring.' });
    expect(d.report.audio).toEqual({ available: false, devices: [], problem: 'The audio capture process did not answer within 20 s.', host: null });
    expect(d.text).toContain('Microphones: not available\n  The audio capture process did not answer within 20 s.');
  });
});
