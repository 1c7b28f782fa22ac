import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { lockedKeychain } from '../support/locked-keychain.js';

// Issue 13: a take is never lost because the signing key cannot be read; it is saved unsigned,
// and the session says so. The keychain is the real adapter; only keytar under it is replaced, by
// one that answers as a Secret Service with a locked keyring does.
const cleanups = useCleanups();

describe('a recording when the HMAC key cannot be read', () => {
  it('is saved unsigned, and the session status says so and why', async () => {
    const { call, saved, dataDir } = await startCore(cleanups, { keychain: lockedKeychain(), serial: null, uploads: false });
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'wave', category: 'training', lengthMs: 500, queue: false });
    const done = await saved(st.sessionId);
    expect(done.state).toBe('saved');
    expect(done.sampleIds).toHaveLength(1);
    expect(done.error).toMatch(/^saved unsigned: the project's HMAC key could not be read \(.*locked.*\); unlock or fix the keychain, then record again if the project needs signed data$/);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const msg = decodeAcquisition(await readFile(join(dataDir, samples[0]!.file)), 'cbor');
    expect(msg.protected.alg).toBe('none');
    expect(msg.payload.values.length).toBeGreaterThan(50);
  }, 30_000);
});
