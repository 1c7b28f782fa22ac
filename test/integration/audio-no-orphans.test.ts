import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AudioLevels } from '../../src-main/core/contract/contract.js';
import { CLI, runCli, startServe } from '../support/cli.js';
import { endedWithin, running, waitForCaptureProcess } from '../support/audio/capture-processes.js';
import { cliInJackWedge } from '../support/audio/in-jack-wedge.js';
import { testPulseFromEnv, toneMicrophone } from '../support/audio/pulse.mjs';
import { API_KEY, newDataDir, PROJECT_ID, startConnect, startPlatform, type Cleanups } from '../support/connect-run.js';
import { stopChild } from '../support/stop-child.js';
import { TestWsClient } from '../support/ws-client.js';

// Issue 30, part 3: no capture process outlives the app. Each test kills the app (kill -9, so
// nothing of it runs any more) while its capture process records, or while that process is stuck
// in native code listing devices (a wedged JACK lock in a private /dev/shm, see jack-wedge.sh),
// and then every capture process it had must be gone within 2 s.
const cleanups: Cleanups = [];
const strays: number[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  // A red test must not leave its own capture processes to the next one.
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});
let server: { env: { PULSE_SERVER: string }; sink: string };
beforeAll(() => {
  server = testPulseFromEnv();
});
const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-orphans-')), 'data');

const toneEnv = (freq: number) => toneMicrophone(server.env, freq, cleanups);

/**
 * Runs the CLI with JACK forced in a private /dev/shm whose lock is wedged, waits until its capture
 * process is stuck in libjack (blocked in native code), kills the CLI with -9: no capture process
 * may be left 2 s later.
 */
async function killedWhileStuck(args: string[]): Promise<void> {
  const run = cliInJackWedge(args, { ...server.env, CAPTURE_DESK_AUDIO_HOST: 'jack' });
  cleanups.push(() => stopChild(run.child));
  await run.ready;
  const workers = await waitForCaptureProcess(run.child.pid!);
  await stuckInJack(workers[0]!);
  const r = await killAndWatch(run.child, workers);
  expect(r.left).toEqual([]);
  expect(r.ms).toBeLessThan(2000);
}

/** `record audio` from a tone microphone, once it records: the CLI and its capture processes. */
async function recordingAudio(): Promise<{ child: ChildProcess; workers: number[] }> {
  const env = await toneEnv(1000);
  const child = spawn(process.execPath, [CLI, 'record', 'audio', '--length-ms', '30000', '--data-dir', await dataDir()], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  cleanups.push(() => stopChild(child));
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  await waitForText(() => err, 'Recording 30000 ms');
  return { child, workers: await waitForCaptureProcess(child.pid!) };
}

/** kill -9 of `app`, then: how long until each of its capture processes was gone. */
async function killAndWatch(app: ChildProcess, workers: number[]): Promise<{ ms: number; left: number[] }> {
  strays.push(...workers);
  app.kill('SIGKILL');
  return endedWithin(workers, 5000);
}

/** The capture process is inside libjack, waiting for the wedged lock (its main thread is blocked in native code). */
async function stuckInJack(pid: number): Promise<void> {
  await expect.poll(() => {
    try {
      return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('/dev/shm/jack_db-');
    } catch {
      return false;
    }
  }, { timeout: 10_000, interval: 100 }).toBe(true);
  await new Promise((r) => setTimeout(r, 500));
}

function waitForText(get: () => string, text: string, timeoutMs = 20_000): Promise<void> {
  return expect.poll(() => get().includes(text), { timeout: timeoutMs, interval: 50 }).toBe(true) as Promise<void>;
}

describe('kill -9 of the app leaves no capture process', { timeout: 60_000 }, () => {
  it('record audio, while recording', async () => {
    const { child, workers } = await recordingAudio();
    const r = await killAndWatch(child, workers);
    expect(r.left).toEqual([]);
    expect(r.ms).toBeLessThan(2000);
  });

  it('record audio, while its capture process is stuck listing devices in native code', async () => {
    await killedWhileStuck(['record', 'audio', '--length-ms', '1000', '--data-dir', await dataDir()]);
  });

  it('connect --microphone, while recording for the platform', async () => {
    const env = await toneEnv(1000);
    const p = await startPlatform(cleanups);
    const c = await startConnect(cleanups, p, ['--microphone', '--device-id', 'orphan-mic'], { env });
    await c.waitEvent((e) => e.event === 'connected', 15_000);
    expect(await p.startSampling('orphan-mic', { label: 'long', lengthMs: 30_000, category: 'training', intervalMs: 1000 / 16000, sensor: 'Microphone' })).toMatchObject({ success: true });
    await c.waitEvent((e) => e.event === 'sample-requested');
    await expect.poll(() => p.log('orphan-mic').some((m) => m.dir === 'in' && m.type === 'sampleStarted'), { timeout: 15_000 }).toBe(true);
    const workers = await waitForCaptureProcess(c.child.pid!);
    const r = await killAndWatch(c.child, workers);
    expect(r.left).toEqual([]);
    expect(r.ms).toBeLessThan(2000);
  });

  it('connect --microphone, while its capture process is stuck listing devices in native code', async () => {
    const p = await startPlatform(cleanups);
    const args = [
      'connect', '--microphone', '--device-id', 'stuck-mic', '--json', '--data-dir', await newDataDir(), '--project-id', String(PROJECT_ID),
      '--remote-mgmt-url', p.remote.url, '--ingestion-url', p.ingestion.url, '--management-url', p.ingestion.managementUrl, '--api-key', API_KEY,
    ];
    await killedWhileStuck(args);
  });

  it('a capture process that could not notice (stopped when its app was killed) is ended by the next run', async () => {
    const { child: first, workers } = await recordingAudio();
    strays.push(...workers);
    for (const pid of workers) process.kill(pid, 'SIGSTOP'); // its watcher thread stops with it
    first.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 2500));
    expect(workers.filter(running)).toEqual(workers); // left over
    // The next run of the app (any command that starts capture) ends it first.
    const next = await runCli(['devices', 'audio', '--json', '--data-dir', await dataDir()], { env: server.env });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain('ending a capture process left over from an earlier run');
    expect((await endedWithin(workers, 2000)).left).toEqual([]);
  });

  it('the browser shell (serve), while a microphone streams', async () => {
    const env = await toneEnv(440);
    const serve = await startServe(['--port', '0', '--data-dir', await dataDir()], { env });
    cleanups.push(() => stopChild(serve.child));
    const client = await TestWsClient.connect(`${serve.url.replace(/^http/, 'ws')}ws`);
    cleanups.push(() => client.ws.close());
    const started = await client.call('stream.start', { sourceId: 'audio:default' });
    expect(started.ok, JSON.stringify(started)).toBe(true);
    await client.waitFor((m) => m.t === 'event' && m.name === 'audio.levels' && (m.payload as AudioLevels).rmsDbfs > -12, 15_000);
    const workers = await waitForCaptureProcess(serve.child.pid!);
    const r = await killAndWatch(serve.child, workers);
    expect(r.left).toEqual([]);
    expect(r.ms).toBeLessThan(2000);
  });
});
