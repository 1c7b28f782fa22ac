import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseAudioHost, envForHost, findJackServer, noJackFolder } from '../../src-main/core/audio/audio-host.js';
import { stuckError, stuckFromMaps } from '../../src-main/core/audio/stuck-audio.js';

const uid = process.getuid?.() ?? 0;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A listening Unix socket where a JACK2 server of a test-only name would have it. */
async function fakeJackServer(name: string): Promise<string> {
  const path = `/dev/shm/jack_${name}_${uid}_0`;
  const srv: Server = createServer((s) => s.destroy());
  await new Promise<void>((r) => srv.listen(path, r));
  cleanups.push(() => new Promise<void>((r) => srv.close(() => r())));
  return path;
}

describe('which sound system the capture process uses', () => {
  const name = `capture-desk-test-${process.pid}`;
  const env = { JACK_DEFAULT_SERVER: name };

  it('ALSA when no JACK server answers, so libjack is never loaded', async () => {
    expect(await chooseAudioHost(env, uid, 'linux')).toMatchObject({ host: 'alsa', jackServer: null });
  });

  it('JACK when a JACK server answers on its socket; a stale socket file does not count', async () => {
    const path = await fakeJackServer(name);
    expect(await findJackServer(env, uid)).toBe(path);
    expect(await chooseAudioHost(env, uid, 'linux')).toMatchObject({ host: 'jack', jackServer: path });
    await cleanups.pop()!(); // server closed: Node removes the socket file; a leftover file would refuse connections too
    expect(await chooseAudioHost(env, uid, 'linux')).toMatchObject({ host: 'alsa' });
  });

  it('CAPTURE_DESK_AUDIO_HOST overrides; other systems use their own', async () => {
    expect((await chooseAudioHost({ ...env, CAPTURE_DESK_AUDIO_HOST: 'jack' }, uid, 'linux')).reason).toMatch(/no JACK server is running/);
    await fakeJackServer(name);
    expect(await chooseAudioHost({ ...env, CAPTURE_DESK_AUDIO_HOST: 'alsa' }, uid, 'linux')).toMatchObject({ host: 'alsa' });
    expect(await chooseAudioHost(env, uid, 'darwin')).toMatchObject({ host: 'system' });
  });

  it('ALSA puts a private folder with an empty libjack.so.0 first on LD_LIBRARY_PATH: its dlopen fails at once', async () => {
    const e = envForHost({ host: 'alsa', reason: '', jackServer: null }, { LD_LIBRARY_PATH: '/opt/x' }, 'linux');
    const dir = e.LD_LIBRARY_PATH!.split(':')[0]!;
    expect(e.LD_LIBRARY_PATH).toBe(`${dir}:/opt/x`);
    const st = statSync(dir);
    expect(st.uid).toBe(uid);
    expect(st.mode & 0o022).toBe(0);
    expect(statSync(join(dir, 'libjack.so.0')).size).toBe(0);
    // What cpal's dlopen meets (python's ctypes uses the same dlopen).
    const out = execFileSync('python3', ['-c', 'import ctypes\ntry:\n  ctypes.CDLL("libjack.so.0"); print("loaded")\nexcept OSError as e: print("refused", e)'], { env: { ...process.env, LD_LIBRARY_PATH: e.LD_LIBRARY_PATH } }).toString();
    expect(out).toMatch(/^refused .*libjack\.so\.0: file too short/);
    expect(envForHost({ host: 'jack', reason: '', jackServer: 'x' }, { A: '1' }, 'linux')).toEqual({ A: '1' });
  });

  it('never uses a no-JACK folder someone else could have planted', async () => {
    const base = await mkdtemp(join(tmpdir(), 'cd-nojack-'));
    cleanups.push(() => rm(base, { recursive: true, force: true }));
    // The fixed name exists but is writable by others: a fresh private folder is made instead.
    execFileSync('sh', ['-c', `mkdir -m 777 ${base}/capture-desk-${uid}-no-jack && chmod 777 ${base}/capture-desk-${uid}-no-jack`]);
    const dir = noJackFolder(base, true);
    expect(dir).not.toBe(join(base, `capture-desk-${uid}-no-jack`));
    expect(statSync(dir).mode & 0o077).toBe(0);
  });
});

describe('naming what a capture process is stuck on', () => {
  it('a process joined to the JACK metadata database is stuck on its lock', () => {
    const maps = `7f00-7f01 rw-s 00000000 00:1a 12 /dev/shm/jack_db-${uid}/__db.001\n7f02-7f03 r-xp 0 08:01 9 /usr/lib/x86_64-linux-gnu/libjack.so.0.1.0\n`;
    expect(stuckFromMaps(maps, uid)).toBe('jack-metadata-lock');
    expect(stuckFromMaps('7f00-7f01 r-xp 0 08:01 9 /usr/lib/x86_64-linux-gnu/libasound.so.2.0.0\n', uid)).toBe('sound-system');
  });

  it('the sentence says which folder, that a reboot clears it, whether a JACK server runs, and what keeps working', () => {
    const e = stuckError('Listing microphones', 8000, { on: 'jack-metadata-lock', folder: '/dev/shm/jack_db-1000', jackServer: null });
    expect(e.code).toBe('Unavailable');
    expect(e.message).toBe('Listing microphones is stuck (no answer within 8 s): the JACK audio library waits for a lock in its metadata folder /dev/shm/jack_db-1000 that a process which ended never released. No JACK server is running, so nothing needs that folder: move that folder away or delete it (rm -rf /dev/shm/jack_db-1000; it is also cleared by a reboot), then try again. Capture Desk uses ALSA (PulseAudio/PipeWire) instead meanwhile; serial capture and uploads keep working.');
    expect(e.details).toMatchObject({ reason: 'audio-stuck', stuck: 'jack-metadata-lock', folder: '/dev/shm/jack_db-1000' });
    expect(stuckError('Opening the microphone', 15_000, { on: 'jack-metadata-lock', folder: '/dev/shm/jack_db-0', jackServer: '/dev/shm/jack_default_0_0' }).message).toMatch(/A JACK server is running \(\/dev\/shm\/jack_default_0_0\): stop it, then move that folder away/);
    expect(stuckError('Listing microphones', 8000, { on: 'sound-system', folder: null, jackServer: null }).message).toMatch(/^Listing microphones is stuck \(no answer within 8 s\): the sound system \(ALSA, PulseAudio or PipeWire\) does not respond\. Restart the sound server/);
  });
});
