import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { audioTestSetup } from '../support/audio/audio-test-setup.js';
import { toneMicrophone } from '../support/audio/pulse.mjs';
import { dominantFrequencies, readWav } from '../support/audio/signal.mjs';
import { assertBuilt, CLI } from '../support/cli.js';

// Issue 30, the other side of keeping libjack out: a JACK setup that is there must keep working.
// Each test runs the real CLI in a private /dev/shm (a mount namespace) where a real JACK server
// runs (jackd, JACK2's dummy backend: silent capture ports), or, as the control, none
// (test/support/audio/jack-server.sh). The PulseAudio test microphone plays a tone meanwhile, so
// the recording itself tells which sound system it came through: JACK's dummy capture is digital
// silence, ALSA (through PulseAudio) hears the tone.
const JACK_SERVER = fileURLToPath(new URL('../support/audio/jack-server.sh', import.meta.url));
const PIPEWIRE_SERVER = fileURLToPath(new URL('../support/audio/pipewire-server.sh', import.meta.url));
const uid = 0; // inside the namespace the test runs as root (CI) or as root mapped from the user
const { cleanups, pulse, dataDir } = audioTestSetup('cd-jack-server-');

/** The CLI beside a JACK server (or none): exit code, its output, and what /dev/shm held at the end. */
function cliBesideJack(args: string[], env: NodeJS.ProcessEnv, jack: 'jackd' | 'none' | 'pipewire' | 'pw-jack alone'): Promise<{ code: number | null; stdout: string; stderr: string; shm: string[] }> {
  assertBuilt();
  const script = jack === 'jackd' || jack === 'none' ? JACK_SERVER : PIPEWIRE_SERVER;
  const server = jack === 'pipewire' || jack === 'pw-jack alone' ? { PIPEWIRE_SERVER: jack === 'pipewire' ? 'pipewire' : 'none' } : { JACK_SERVER: jack };
  const child = spawn('bash', [script, process.execPath, CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, ...server } });
  cleanups.push(() => child.exitCode === null && child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => {
    child.once('close', (code) => {
      const shm = /jack-server: shm: (.*)/.exec(stderr)?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
      resolve({ code, stdout, stderr, shm });
    });
  });
}

const jackInputs = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; name: string }).filter((d) => /^cpal_client_\d+_in$/.test(d.name));

/** `devices audio` lists JACK's one input beside `on`, and beside `off` none, only ALSA's default; the second run. */
async function listsJackInputOnlyWith(on: 'jackd' | 'pipewire', off: 'none' | 'pw-jack alone') {
  const withServer = await cliBesideJack(['devices', 'audio', '--json', '--data-dir', await dataDir()], pulse().env, on);
  expect(withServer.code, withServer.stderr).toBe(0);
  expect(jackInputs(withServer.stdout), withServer.stdout).toHaveLength(1);
  const without = await cliBesideJack(['devices', 'audio', '--json', '--data-dir', await dataDir()], pulse().env, off);
  expect(without.code, without.stderr).toBe(0);
  expect(jackInputs(without.stdout), without.stdout).toHaveLength(0);
  expect(without.stdout).toMatch(/"id":"default"/);
  return without;
}

describe('a JACK server that is running is used', { timeout: 60_000 }, () => {
  it('devices audio lists JACK\'s input when jackd runs, and none (libjack never loaded, no jack_db folder) when it does not', async () => {
    const without = await listsJackInputOnlyWith('jackd', 'none');
    expect(without.shm, without.stderr).not.toContain(`jack_db-${uid}`);
  });

  it('record audio goes through JACK when jackd runs (its silent capture, not the tone on PulseAudio), through ALSA when it does not', async () => {
    const env = await toneMicrophone(pulse().env, 1000, cleanups);
    const viaJack = await cliBesideJack(['record', 'audio', '--length-ms', '1000', '--data-dir', await dataDir()], env, 'jackd');
    expect(viaJack.code, viaJack.stderr).toBe(0);
    const a = JSON.parse(viaJack.stdout) as { file: string; rows: number; incomplete: boolean };
    expect(a).toMatchObject({ rows: 16_000, incomplete: false });
    const silent = await readWav(a.file);
    expect(silent.frames).toBe(16_000);
    expect(Math.max(...Array.from(silent.samples, Math.abs))).toBe(0);

    const viaAlsa = await cliBesideJack(['record', 'audio', '--length-ms', '1000', '--data-dir', await dataDir()], env, 'none');
    expect(viaAlsa.code, viaAlsa.stderr).toBe(0);
    const b = JSON.parse(viaAlsa.stdout) as { file: string; rows: number };
    expect(b.rows).toBe(16_000);
    const tone = await readWav(b.file);
    expect(Math.abs(dominantFrequencies(tone.samples, 16_000, 1)[0]!.freq - 1000)).toBeLessThan(10);
    expect(viaAlsa.shm, viaAlsa.stderr).not.toContain(`jack_db-${uid}`);
  });
});

describe('PipeWire\'s JACK library (pw-jack) with a PipeWire server running is used', { timeout: 60_000 }, () => {
  it('devices audio lists JACK\'s input through PipeWire, and none under pw-jack with no PipeWire server', async () => {
    await listsJackInputOnlyWith('pipewire', 'pw-jack alone');
  });
});
