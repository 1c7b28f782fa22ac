import { describe, expect, it } from 'vitest';
import type { RemoteRequest } from '../../../src-main/core/contract/contract.js';
import { platformTakeText, remoteStateText, requestOutcomeText, secondsLeft, targetHint, ticks } from '../../../src-renderer/lib/remote/remote-words.js';

const link = (state: Parameters<typeof remoteStateText>[0]['state'], retryInMs: number | null = null, reason: string | null = null) => ({ state, retryInMs, reason });

const request = (patch: Partial<RemoteRequest> = {}): RemoteRequest => ({
  label: 'wave', lengthMs: 2000, sensor: 'Microphone', category: 'training', path: '/api/training/data', stage: 'recording', sampleId: null, sampleIds: [], error: null,
  collectedSampleCount: null, targetSampleCount: null, labelColor: null, at: '2026-01-01T00:00:00.000Z', ...patch,
});

describe('platform connection in words', () => {
  it('names each state as the device list shows it', () => {
    expect(remoteStateText(link('connecting'), 0)).toBe('Connecting…');
    expect(remoteStateText(link('preparing'), 0)).toBe('Preparing…');
    expect(remoteStateText(link('online'), 0)).toBe('Online');
    expect(remoteStateText(link('recording'), 0)).toBe('Recording for the platform');
    expect(remoteStateText(link('off'), 0)).toBe('Not connected');
  });

  it('counts a reconnect down from the moment the core reported it, in whole seconds, never below zero', () => {
    expect(remoteStateText(link('reconnecting', 4000, 'closed'), 0)).toBe('Reconnecting in 4 s');
    expect(remoteStateText(link('reconnecting', 4000, 'closed'), 1200)).toBe('Reconnecting in 3 s');
    expect(remoteStateText(link('reconnecting', 4000, 'closed'), 3999)).toBe('Reconnecting in 1 s');
    expect(remoteStateText(link('reconnecting', 4000, 'closed'), 4000)).toBe('Reconnecting…');
    expect(remoteStateText(link('reconnecting', 4000, 'closed'), 9000)).toBe('Reconnecting…');
    expect(secondsLeft(1000, 5000)).toBe(0);
    // What a screen reader hears once: no countdown.
    expect(remoteStateText(link('reconnecting', 4000), null)).toBe('Reconnecting…');
  });

  it('says why a refused or unavailable device is not online, and when it tries again', () => {
    expect(remoteStateText(link('refused', null, 'wrong API key'), 0)).toBe('Refused: wrong API key');
    expect(remoteStateText(link('failed', 2000, 'the board is unplugged'), 500)).toBe('Not available: the board is unplugged (trying again in 2 s)');
    expect(remoteStateText(link('failed', 2000, 'the board is unplugged'), null)).toBe('Not available: the board is unplugged');
    expect(remoteStateText(link('failed', null, null), 0)).toMatch(/^Not available: \S/);
    expect(remoteStateText(link('refused', null, null), 0)).toMatch(/^Refused: \S/);
  });

  it('runs a clock only for a wait that counts down', () => {
    expect(ticks(link('reconnecting', 1000))).toBe(true);
    expect(ticks(link('failed', 1000))).toBe(true);
    expect(ticks(link('online'))).toBe(false);
    expect(ticks(link('refused'))).toBe(false);
  });
});

describe('platform requests in words', () => {
  it('says what the platform asked for, with its length in seconds', () => {
    expect(platformTakeText({ label: 'wave', lengthMs: 2000 })).toBe('Recording for the platform: wave, 2 s');
    expect(platformTakeText({ label: 'knock', lengthMs: 1500 })).toBe('Recording for the platform: knock, 1.5 s');
  });

  it('shows the progress hint only when the platform gave both numbers', () => {
    expect(targetHint({ collectedSampleCount: 3, targetSampleCount: 10 })).toBe('3 of 10 for this label');
    expect(targetHint({ collectedSampleCount: 0, targetSampleCount: 5 })).toBe('0 of 5 for this label');
    expect(targetHint({ collectedSampleCount: 3, targetSampleCount: null })).toBeNull();
    expect(targetHint({ collectedSampleCount: null, targetSampleCount: null })).toBeNull();
  });

  it('gives the last request an outcome: finished after the upload, failed with the error', () => {
    expect(requestOutcomeText(request({ stage: 'finished', sampleId: 's1', sampleIds: ['s1'] }))).toBe('Last platform request (wave, 2 s): finished, uploaded to the platform');
    expect(requestOutcomeText(request({ stage: 'finished', sampleId: 's1', sampleIds: ['s1', 's2'] }))).toBe('Last platform request (wave, 2 s): finished, uploaded to the platform in 2 parts (the board restarted during the take)');
    expect(requestOutcomeText(request({ stage: 'uploading', sampleId: 's1', sampleIds: ['s1', 's2'] }))).toBe('Last platform request (wave, 2 s): saved in 2 parts (the board restarted during the take), uploading…');
    expect(requestOutcomeText(request({ stage: 'failed', error: 'The disk is full.' }))).toBe('Last platform request (wave, 2 s): failed: The disk is full.');
    expect(requestOutcomeText(request({ stage: 'uploading' }))).toMatch(/uploading…$/);
    expect(requestOutcomeText(request({ stage: 'failed', error: null }))).toMatch(/failed: \S/);
  });
});
