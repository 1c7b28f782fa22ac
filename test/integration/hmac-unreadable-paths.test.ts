import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeRows } from '../../src-main/core/capture/cbor-rows.js';
import { recoverRecordings } from '../../src-main/core/capture/recording-recovery.js';
import type { Sample } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { decodeAcquisition, detectAcquisitionFormat, verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { SampleStore } from '../../src-main/core/samples/sample-store.js';
import { memoryKeychain, type Keychain } from '../../src-main/core/secrets/keychain.js';
import { atBoard } from '../support/boards/board-on-pty.js';
import { openPtyPair } from '../support/boards/pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { lockedKeychain } from '../support/locked-keychain.js';

// Issue 13, the paths besides a session's own Stop: an AT board's sample, what a session that
// failed to start kept, and a recording recovered at start. Each is saved unsigned when the
// project's HMAC key cannot be read, and says so where that path speaks to the user. The keychain
// is the real adapter; only keytar under it answers as a Secret Service with a locked keyring.
const HMAC = 'lab-hmac-key-0123456789abcdef';
const UNSIGNED = /saved unsigned: the project's HMAC key could not be read \(.*locked.*\); unlock or fix the keychain, then record again if the project needs signed data/;

const cleanups = useCleanups();

const locked = lockedKeychain;

async function recordOnBoard(keychain: Keychain, setKey: boolean) {
  const path = (await atBoard(cleanups, ['--time-scale', '0.05', '--at-version', '1.6.0'])).pty.hostPath;
  const { call, logLines: lines, dataDir } = await startCore(cleanups, { keychain, uploads: false });
  if (setKey) await call('keys.set', { kind: 'hmac-key', key: HMAC });
  await call('serial.addPath', { path });
  await call('serial.setSettings', { path, settings: { mode: 'at' } });
  const sample = await call<Sample>('at.record', { path, sensor: 'Built-in accelerometer', frequencyHz: 62.5, lengthMs: 1000, label: 'knock', category: 'training', metadata: {}, queue: false });
  const bytes = await readFile(join(dataDir, sample.file));
  const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
  return { sample, bytes, listed: samples, lines };
}

describe('an AT board sample when the HMAC key cannot be read', () => {
  it('is saved unsigned, and its note (in the answer and in the list) says why, and the log says so', async () => {
    const { sample, bytes, listed, lines } = await recordOnBoard(locked(), false);
    expect(sample).toMatchObject({ kind: 'sensor', label: 'knock', incomplete: false, extra: { signed_by_device: false } });
    expect(decodeAcquisition(bytes, detectAcquisitionFormat(bytes)).protected.alg).toBe('none');
    expect(decodeAcquisition(bytes, detectAcquisitionFormat(bytes)).payload.values.length).toBeGreaterThan(10);
    expect(sample.note).toMatch(new RegExp(`^${UNSIGNED.source}$`));
    expect(listed.find((s) => s.id === sample.id)?.note).toBe(sample.note);
    expect(lines.some((l) => /HMAC key could not be read; saving unsigned/.test(l) && /locked/.test(l))).toBe(true);
  }, 30_000);

  it('negative control: with a key that can be read, the board signs it and no note is added', async () => {
    const { sample, bytes, lines } = await recordOnBoard(memoryKeychain(), true);
    expect(sample.extra.signed_by_device).toBe(true);
    expect(lines.join('\n')).not.toContain(HMAC);
    expect(verifyAcquisitionSignature(bytes, HMAC)).toBe(true);
    expect(sample.note).toBeNull();
  }, 30_000);
});

describe('a session that fails to start when the HMAC key cannot be read', () => {
  it('keeps what the first source recorded, unsigned, and both the error and the note say why', async () => {
    const { call, dataDir } = await startCore(cleanups, { keychain: locked(), uploads: false });
    const pty = await openPtyPair(); // nothing on the board end: it fails after its 5 s wait
    cleanups.push(() => pty.close());
    await call('serial.addPath', { path: pty.hostPath });
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const err = await call('record.start', { sourceIds: ['simulated:imu', `serial:${pty.hostPath}`], label: 'door', category: 'training' }).then(() => null, (e: unknown) => e as Error);
    expect(err?.message).toMatch(new RegExp(`What simulated:imu recorded meanwhile is kept as an incomplete local sample\\. What simulated:imu recorded was ${UNSIGNED.source}\\.$`));
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    expect(samples).toHaveLength(1);
    expect(samples[0]!.note).toMatch(new RegExp(`^incomplete: the recording session could not start .* while the others were starting; ${UNSIGNED.source}$`));
    const msg = decodeAcquisition(await readFile(join(dataDir, samples[0]!.file)), 'cbor');
    expect(msg.protected.alg).toBe('none');
    expect(msg.payload.values.length).toBeGreaterThan(100);
  }, 30_000);
});

/** What a sensor recording that was running when the process died leaves in the recordings folder. */
async function leftover(dataDir: string): Promise<void> {
  const rec = join(dataDir, 'recordings');
  await mkdir(rec, { recursive: true });
  const header = { deviceType: 'BOARD', sensors: [{ name: 'ax', units: 'g' }, { name: 'ay', units: 'g' }], context: { sourceId: 'serial:/dev/x', label: 'wave', category: 'training', metadata: {}, intervalMs: 10 }, started: new Date().toISOString() };
  await writeFile(join(rec, 'abcdef12-0000.json'), JSON.stringify(header));
  await writeFile(join(rec, 'abcdef12-0000.rows'), encodeRows([1, 2, 3, 4, 5.5, 6.25], 2, 3));
}

describe('a recording recovered at start when the HMAC key cannot be read', () => {
  it('is kept unsigned, and its note says so after saying it was recovered', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-hmac-recover-')), 'data');
    await leftover(dataDir);
    const { call, logLines: lines } = await startCore(cleanups, { dataDir, keychain: locked(), uploads: false });
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    expect(samples).toHaveLength(1);
    const s = samples[0]!;
    expect(s.note).toMatch(new RegExp(`^incomplete: the app stopped during this recording; recovered at the next start\\. Check it before uploading\\. It was ${UNSIGNED.source}\\.$`));
    const msg = decodeAcquisition(await readFile(join(dataDir, s.file)), 'cbor');
    expect(msg.protected.alg).toBe('none');
    expect(msg.payload.values).toEqual([[1, 2], [3, 4], [5.5, 6.25]]);
    expect(lines.some((l) => /HMAC key could not be read; saving unsigned/.test(l))).toBe(true);
  }, 30_000);

  it('negative control: with a key that can be read, it is signed and the note says nothing of it', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-hmac-recover-')), 'data');
    await leftover(dataDir);
    const log = createLogger(() => {});
    const store = await SampleStore.open(dataDir, log);
    cleanups.push(() => store.close());
    const [s] = await recoverRecordings(store, log, async () => HMAC);
    expect(verifyAcquisitionSignature(await store.readBytes(s!), HMAC)).toBe(true);
    expect(s!.note).not.toMatch(/unsigned/);
  });
});
