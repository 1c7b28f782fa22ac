import { describe, expect, it } from 'vitest';
import type { RecordingStatus, RemoteDevice, RemoteRequest } from '../../../src-main/core/contract/contract.js';
import { platformTakesShown, takeOfStatus } from '../../../src-renderer/lib/remote/platform-takes.js';

const platform = { deviceId: 'dev-a', label: 'wave', lengthMs: 2000, collectedSampleCount: 3, targetSampleCount: 10 };

const status = (patch: Partial<RecordingStatus>): RecordingStatus => ({
  sessionId: 's1', state: 'recording', sourceIds: ['serial:/dev/pts/3'], startedAt: '2026-01-01T00:00:00.000Z', lengthMs: 2000, sampleIds: [], queued: 0, held: 0,
  error: null, events: [], interruptions: [], ...patch,
});

const request = (stage: RemoteRequest['stage']): RemoteRequest => ({
  label: 'knock', lengthMs: 1000, sensor: 'Built-in accelerometer', category: 'training', path: '/api/training/data', stage, sampleId: null, sampleIds: [], error: null,
  collectedSampleCount: null, targetSampleCount: null, labelColor: null, at: '2026-01-01T00:00:00.000Z',
});

const device = (patch: Partial<RemoteDevice>): RemoteDevice => ({
  sourceId: 'serial:/dev/pts/4', enabled: true, deviceId: 'dev-b', deviceType: 'SIMULATED_AT_BOARD', name: null, state: 'recording', retryInMs: null, reason: null,
  sensors: [], request: null, ...patch,
});

describe('platform takes in the live view', () => {
  it('takes a take of the recording service only while the platform asked for it and it is not over', () => {
    expect(takeOfStatus(status({ platform }))).toMatchObject({ deviceId: 'dev-a', label: 'wave', sourceIds: ['serial:/dev/pts/3'], saving: false });
    expect(takeOfStatus(status({ platform, state: 'saving' }))?.saving).toBe(true);
    expect(takeOfStatus(status({ platform, state: 'saved' }))).toBeNull();
    expect(takeOfStatus(status({ platform, state: 'failed' }))).toBeNull();
    expect(takeOfStatus(status({ platform: null }))).toBeNull();
    expect(takeOfStatus(status({}))).toBeNull();
  });

  it('adds devices recording a request that no take of the recording service covers (boards that sample on their own)', () => {
    const fromService = [takeOfStatus(status({ platform }))!];
    const shown = platformTakesShown(fromService, [
      device({ deviceId: 'dev-a', sourceId: 'serial:/dev/pts/3', request: request('recording') }), // the same take: once
      device({ request: request('recording') }),
      device({ deviceId: 'dev-c', sourceId: 'audio:default', request: request('finished') }),
      device({ deviceId: 'dev-d', sourceId: 'audio:x', enabled: false, request: request('recording') }),
    ]);
    expect(shown.map((t) => t.deviceId)).toEqual(['dev-a', 'dev-b']);
    expect(shown[1]).toMatchObject({ label: 'knock', lengthMs: 1000, sourceIds: ['serial:/dev/pts/4'], startedAt: null });
  });
});
