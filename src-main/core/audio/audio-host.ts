/**
 * Which sound system the capture process talks to, decided before it starts.
 *
 * node-web-audio-api 2.2 (cpal 0.18 with its JACK host) dlopens libjack.so.0 whenever it lists or
 * opens devices, JACK server or not, and libjack then joins its metadata database in
 * /dev/shm/jack_db-<uid> (Berkeley DB, whose locks live in shared memory). One process dying while
 * holding that lock hangs every later listing of every program of that user until the folder goes.
 * So libjack is kept out of the capture process unless a JACK server is actually there: the
 * process gets LD_LIBRARY_PATH with a folder whose libjack.so.0 is an empty file, the dlopen fails
 * ("file too short"), cpal finds no JACK devices and node-web-audio-api falls back to ALSA (which
 * reaches PulseAudio and PipeWire through their ALSA plugins).
 *
 * CAPTURE_DESK_AUDIO_HOST=jack|alsa|auto (default auto) overrides the choice.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** 'system': not Linux, the platform's own sound system (no choice to make). */
export type AudioHost = 'alsa' | 'jack' | 'system';

export interface HostChoice {
  host: AudioHost;
  /** One sentence: why this host (for the log and diagnostics). */
  reason: string;
  /** The JACK server found (socket path or "PipeWire"), if any. */
  jackServer: string | null;
}

/** Where JACK keeps its shared files on Linux (libjack has it compiled in). */
export const JACK_SHM_DIR = '/dev/shm';

export function jackMetadataFolder(uid = process.getuid?.() ?? 0): string {
  return `${JACK_SHM_DIR}/jack_db-${uid}`;
}

/** Resolves true when something accepts connections on this Unix socket within `ms`. */
export function socketAnswers(path: string, ms = 300): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ms);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * A JACK server of this user that answers: JACK2's socket /dev/shm/jack_<name>_<uid>_0, JACK1's
 * /dev/shm/jack-<uid>/<name>/jack_0, or PipeWire when its JACK library is the one the loader finds
 * (LD_LIBRARY_PATH, e.g. pw-jack, or an ld.so.conf.d entry). Stale socket files do not count.
 */
export async function findJackServer(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.() ?? 0): Promise<string | null> {
  const name = env.JACK_DEFAULT_SERVER || 'default';
  for (const p of [`${JACK_SHM_DIR}/jack_${name}_${uid}_0`, `${JACK_SHM_DIR}/jack-${uid}/${name}/jack_0`]) {
    if (await socketAnswers(p)) return p;
  }
  if (pipewireJackInstalled(env)) {
    const dir = env.PIPEWIRE_RUNTIME_DIR || env.XDG_RUNTIME_DIR;
    if (dir && (await socketAnswers(join(dir, env.PIPEWIRE_REMOTE || 'pipewire-0')))) return 'PipeWire';
  }
  return null;
}

/** PipeWire's libjack (no Berkeley DB) is what a dlopen of libjack.so.0 would load. */
function pipewireJackInstalled(env: NodeJS.ProcessEnv): boolean {
  if ((env.LD_LIBRARY_PATH ?? '').split(':').some((d) => /pipewire/i.test(d) && /jack/i.test(d))) return true;
  try {
    return readdirSync('/etc/ld.so.conf.d').some((f) => {
      try {
        return /pipewire[^\n]*jack/i.test(readFileSync(join('/etc/ld.so.conf.d', f), 'utf8'));
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

export async function chooseAudioHost(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.() ?? 0, platform = process.platform): Promise<HostChoice> {
  const asked = (env.CAPTURE_DESK_AUDIO_HOST ?? 'auto').toLowerCase();
  if (platform !== 'linux') return { host: 'system', reason: "the platform's own sound system", jackServer: null };
  if (asked === 'alsa') return { host: 'alsa', reason: 'ALSA, as CAPTURE_DESK_AUDIO_HOST=alsa asks (libjack is never loaded)', jackServer: null };
  const server = await findJackServer(env, uid);
  if (asked === 'jack') return { host: 'jack', reason: `JACK, as CAPTURE_DESK_AUDIO_HOST=jack asks (${server ? `server: ${server}` : 'no JACK server is running'})`, jackServer: server };
  if (server) return { host: 'jack', reason: `JACK: a JACK server is running (${server})`, jackServer: server };
  return { host: 'alsa', reason: 'ALSA (PulseAudio/PipeWire through it): no JACK server is running, so libjack is never loaded', jackServer: null };
}

/**
 * The environment of a capture process for this host. For ALSA, a folder with an empty
 * libjack.so.0 goes first on LD_LIBRARY_PATH (see the top of this file).
 */
export function envForHost(choice: HostChoice, env: NodeJS.ProcessEnv, platform = process.platform): NodeJS.ProcessEnv {
  if (platform !== 'linux' || choice.host !== 'alsa') return env;
  const dir = noJackFolder();
  return { ...env, LD_LIBRARY_PATH: env.LD_LIBRARY_PATH ? `${dir}:${env.LD_LIBRARY_PATH}` : dir };
}

let noJack: string | null = null;

/**
 * A folder of this user holding only an empty libjack.so.0. Whatever sits on LD_LIBRARY_PATH gets
 * loaded into the capture process, so the folder must be ours alone: a fixed name is used only
 * when it is a real folder owned by us that nobody else can write, else a fresh private one.
 */
export function noJackFolder(base = tmpdir(), fresh = false): string {
  if (noJack && !fresh) return noJack;
  const uid = process.getuid?.() ?? 0;
  const fixed = join(base, `capture-desk-${uid}-no-jack`);
  const ownedPrivate = (p: string, kind: 'dir' | 'file') => {
    const st = lstatSync(p);
    return st.uid === uid && (st.mode & 0o022) === 0 && (kind === 'dir' ? st.isDirectory() : st.isFile() && st.size === 0);
  };
  let dir = fixed;
  try {
    mkdirSync(fixed, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  try {
    if (!ownedPrivate(dir, 'dir')) throw new Error('not ours');
  } catch {
    dir = mkdtempSync(join(base, 'capture-desk-no-jack-'));
  }
  const lib = join(dir, 'libjack.so.0');
  try {
    if (!ownedPrivate(lib, 'file')) throw new Error('not ours');
  } catch {
    writeFileSync(lib, '', { mode: 0o600, flag: 'w' });
    if (!ownedPrivate(lib, 'file')) throw new Error(`cannot prepare ${lib}`);
  }
  noJack = dir;
  return dir;
}
