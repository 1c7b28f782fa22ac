import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AtBoardInfo, AtProgress, Sample } from '../../src-main/core/contract/contract.js';
import { verifyAcquisitionSignature } from '../../src-main/core/samples/formats/acquisition.js';
import { atBoard } from '../support/boards/board-on-pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';

const cleanups = useCleanups();

async function setup(boardArgs: string[]) {
  const { pty, events: boardEvents } = await atBoard(cleanups, boardArgs);
  const { call, events, dataDir } = await startCore(cleanups, { uploads: false });
  await call('serial.addPath', { path: pty.hostPath });
  await call('serial.setSettings', { path: pty.hostPath, settings: { mode: 'at' } });
  return { pty, call, events, boardEvents, dataDir };
}

describe('boards with the platform firmware, through the contract', () => {
  it('reads the board, records on it with progress, and keeps the board-signed bytes as a queued sample', async () => {
    const { pty, call, events, boardEvents, dataDir } = await setup(['--at-version', '1.6.0', '--storage', 'file', '--time-scale', '0.05']);
    await call('keys.set', { kind: 'hmac-key', key: 'project-hmac' });
    const info = await call<AtBoardInfo>('at.readBoard', { path: pty.hostPath });
    expect(info).toMatchObject({ deviceId: '5A:1B:C3:D4:E5:F6', deviceType: 'SIMULATED_AT_BOARD', atVersion: '1.6.0' });
    expect(info.sensors.length).toBeGreaterThan(0);
    const sensor = info.sensors[0]!;

    const sample = await call<Sample>('at.record', { path: pty.hostPath, sensor: sensor.name, frequencyHz: sensor.frequencies[0], lengthMs: 1000, label: 'knock', category: 'testing', metadata: { bench: 'b2' } });
    expect(sample).toMatchObject({ label: 'knock', category: 'testing', state: 'queued', kind: 'sensor', metadata: { bench: 'b2' } });
    const bytes = await readFile(join(dataDir, sample.file));
    const onBoard = boardEvents.filter((e) => e.event === 'sample').at(-1)!;
    expect(bytes.equals(Buffer.from(onBoard.base64 as string, 'base64'))).toBe(true); // byte for byte
    expect(verifyAcquisitionSignature(bytes, 'project-hmac')).toBe(true); // signed on the board with the project key
    const stages = events.filter(([n]) => n === 'at.progress').map(([, p]) => (p as AtProgress).stage);
    expect(stages[0]).toBe('connecting');
    expect(stages).toContain('sampling');
    expect(stages).toContain('reading');
    expect(stages.at(-1)).toBe('saved');
  });

  it('refuses a second conversation with a busy board, reports board errors as failed progress, and does not stream in AT mode', async () => {
    const { pty, call, events } = await setup(['--at-version', '1.3.0', '--storage', 'buffer', '--time-scale', '0.05']);
    const first = call('at.readBoard', { path: pty.hostPath });
    await expect(call('at.readBoard', { path: pty.hostPath })).rejects.toMatchObject({ code: 'Busy' });
    await first;
    await expect(call('at.record', { path: pty.hostPath, sensor: 'No such sensor', lengthMs: 1000, label: null, category: 'training' })).rejects.toThrow(/no sensor "No such sensor"/);
    expect(events.filter(([n]) => n === 'at.progress').map(([, p]) => p).at(-1)).toMatchObject({ stage: 'failed', error: expect.stringMatching(/no sensor/) });
    // In AT mode nothing streams: the live view is told why.
    await expect(call('stream.start', { sourceId: `serial:${pty.hostPath}` })).rejects.toThrow(/AT\) mode/);
  });
});
