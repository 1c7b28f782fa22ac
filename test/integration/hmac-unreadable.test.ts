import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../src-main/core/app.js';
import type { CallResult, RecordingStatus, Sample } from '../../src-main/core/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { fixedPorts } from '../support/fake-hardware.js';
import { lockedKeychain } from '../support/locked-keychain.js';

// Issue 13: a take is never lost because the signing key cannot be read; it is saved unsigned,
// and the session says so. The keychain is the real adapter; only keytar under it is replaced, by
// one that answers as a Secret Service with a locked keyring does.
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a recording when the HMAC key cannot be read', () => {
  it('is saved unsigned, and the session status says so and why', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'cd-hmac-')), 'data');
    const keychain = lockedKeychain();
    const core = await createCore({ dataDir, shell: 'cli', uploads: false, hardware: { ports: fixedPorts([]), keychain }, log: createLogger(() => {}) });
    cleanups.push(() => core.close());
    const states: RecordingStatus[] = [];
    core.onEvent((n, p) => void (n === 'record.state' && states.push(p as RecordingStatus)));
    const call = async <T>(m: string, i: unknown = {}): Promise<T> => {
      const r: CallResult = await core.dispatch(m, i);
      if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
      return r.value as T;
    };
    await call('stream.start', { sourceId: 'simulated:imu', rateHz: 200 });
    const st = await call<RecordingStatus>('record.start', { sourceIds: ['simulated:imu'], label: 'wave', category: 'training', lengthMs: 500, queue: false });
    await expect.poll(() => states.find((s) => s.sessionId === st.sessionId && s.state !== 'recording' && s.state !== 'saving'), { timeout: 10_000 }).toBeTruthy();
    const done = states.find((s) => s.sessionId === st.sessionId && s.state !== 'recording' && s.state !== 'saving')!;
    expect(done.state).toBe('saved');
    expect(done.sampleIds).toHaveLength(1);
    expect(done.error).toMatch(/^saved unsigned: the project's HMAC key could not be read \(.*locked.*\); unlock or fix the keychain, then record again if the project needs signed data$/);
    const { samples } = await call<{ samples: Sample[] }>('samples.list', {});
    const msg = decodeAcquisition(await readFile(join(dataDir, samples[0]!.file)), 'cbor');
    expect(msg.protected.alg).toBe('none');
    expect(msg.payload.values.length).toBeGreaterThan(50);
  }, 30_000);
});
