import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { AudioLevels, AudioStatus, DiagnosticsReport, Source } from '../../src-main/core/contract/contract.js';
import { cliInJackWedge, serveInJackWedge } from '../support/audio/in-jack-wedge.js';
import { audioTestSetup } from '../support/audio/audio-test-setup.js';
import { toneMicrophone } from '../support/audio/pulse.mjs';
import { dominantFrequencies, readWav } from '../support/audio/signal.mjs';
import { stopChild } from '../support/stop-child.js';
import { TestWsClient } from '../support/ws-client.js';

// Issue 30: a JACK metadata lock left by a process that died holding it hung every device listing
// on the machine. Each test here runs the real CLI in a private /dev/shm (a mount namespace) whose
// lock the test wedged itself (test/support/audio/jack-wedge.sh); the machine's own
// /dev/shm/jack_db-<uid> is never opened. The PulseAudio test microphone is reached as usual.
const uid = process.getuid?.() ?? 0;
const FOLDER = `/dev/shm/jack_db-${uid}`;
const { cleanups, pulse, dataDir } = audioTestSetup('cd-jack-lock-');

const toneEnv = (freq: number) => toneMicrophone(pulse().env, freq, cleanups);

describe('a stale JACK metadata lock (no JACK server running)', { timeout: 60_000 }, () => {
  it('does not touch it: devices audio lists the PulseAudio microphone at once', async () => {
    const run = cliInJackWedge(['devices', 'audio', '--json', '--data-dir', await dataDir()], pulse().env);
    cleanups.push(() => stopChild(run.child));
    await run.ready;
    const { code, ms } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(ms).toBeLessThan(6000);
    const devices = run.stdout().trim().split('\n').map((l) => JSON.parse(l) as { id: string });
    expect(devices[0]).toMatchObject({ id: 'default' });
    expect(devices.length).toBeGreaterThan(1);
  });

  it('records from the PulseAudio microphone beside it', async () => {
    const env = await toneEnv(1000);
    const run = cliInJackWedge(['record', 'audio', '--length-ms', '1000', '--data-dir', await dataDir()], env);
    cleanups.push(() => stopChild(run.child));
    await run.ready;
    const { code } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    const saved = JSON.parse(run.stdout()) as { file: string; rows: number };
    expect(saved.rows).toBe(16_000);
    const wav = await readWav(saved.file);
    expect(Math.abs(dominantFrequencies(wav.samples, 16_000, 1)[0]!.freq - 1000)).toBeLessThan(10);
  });

  it('with JACK asked for: devices audio names the stuck lock, its folder and what to do, and exits 1 in time', async () => {
    const run = cliInJackWedge(['devices', 'audio', '--data-dir', await dataDir()], { ...pulse().env, CAPTURE_DESK_AUDIO_HOST: 'jack' });
    cleanups.push(() => stopChild(run.child));
    await run.ready;
    const { code, ms } = await run.exited;
    expect(code).toBe(1);
    // 8 s time box, then the stuck process is asked to go and ended (it cannot answer): never the old endless wait.
    expect(ms).toBeLessThan(15_000);
    const said = run.stderr();
    expect(said).toContain(`Listing microphones is stuck (no answer within 8 s): the JACK audio library waits for a lock in its metadata folder ${FOLDER}`);
    expect(said).toContain('No JACK server is running');
    expect(said).toContain(`rm -rf ${FOLDER}; it is also cleared by a reboot`);
    expect(run.stdout()).toBe('');
  });

  it('in the browser shell with JACK asked for: the UI and diagnostics name it, and the microphone still streams (through ALSA)', async () => {
    const env = await toneEnv(440);
    const { url, child } = await serveInJackWedge(['--port', '0', '--data-dir', await dataDir()], { ...env, CAPTURE_DESK_AUDIO_HOST: 'jack' });
    cleanups.push(() => stopChild(child));
    const client = await TestWsClient.connect(`${url.replace(/^http/, 'ws')}ws`);
    cleanups.push(() => client.ws.close());
    const call = async <T>(method: string, input: unknown = {}): Promise<T> => {
      const r = await client.call(method, input);
      if (!r.ok) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
      return r.value as T;
    };
    // Everything else answers while the listing is stuck.
    const t0 = Date.now();
    expect(await call<{ name: string }>('app.info')).toMatchObject({ name: expect.any(String) });
    expect(Date.now() - t0).toBeLessThan(2000);
    await expect.poll(async () => (await call<AudioStatus>('audio.status')).problem, { timeout: 20_000, interval: 250 }).toMatch(new RegExp(`metadata folder ${FOLDER}.*No JACK server is running`));
    const diag = await call<{ report: DiagnosticsReport; text: string }>('app.diagnostics');
    expect(diag.report.audio.problem).toContain(`rm -rf ${FOLDER}`);
    expect(diag.text).toContain(FOLDER);
    // JACK is kept out from then on: the PulseAudio microphone is listed and streams.
    await expect.poll(async () => (await call<Source[]>('sources.list')).some((s) => s.id === 'audio:default'), { timeout: 15_000, interval: 250 }).toBe(true);
    expect((await call<AudioStatus>('audio.status')).host).toMatch(/^ALSA/);
    await call('stream.start', { sourceId: 'audio:default' });
    await client.waitFor((m) => m.t === 'event' && m.name === 'audio.levels' && (m.payload as AudioLevels).rmsDbfs > -12, 15_000);
    // Doing what the sentence says (in the shell's own /dev/shm) clears it at the next device poll.
    execFileSync('nsenter', ['-t', String(child.pid), '-m', 'rm', '-rf', FOLDER]);
    await expect.poll(async () => (await call<AudioStatus>('audio.status')).problem, { timeout: 20_000, interval: 250 }).toBeNull();
  });
});
