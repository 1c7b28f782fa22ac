/**
 * A capture process that does not answer in time: what it is stuck on, in a sentence that says
 * what to do. Read from outside (/proc/<pid>/maps) without touching the thing that is stuck.
 */
import { readFile } from 'node:fs/promises';
import { CoreError } from '../errors.js';
import { findJackServer, jackMetadataFolder, type HostChoice } from './audio-host.js';

export type StuckOn = 'jack-metadata-lock' | 'sound-system';

export interface StuckReport {
  on: StuckOn;
  /** The JACK metadata folder (jack-metadata-lock only). */
  folder: string | null;
  jackServer: string | null;
}

/** What the process had open: libjack joined to its metadata database means that is where it waits. */
export function stuckFromMaps(maps: string, uid = process.getuid?.() ?? 0): StuckOn {
  const folder = jackMetadataFolder(uid);
  return maps.includes(`${folder}/__db.`) || maps.includes('/libjack.so') ? 'jack-metadata-lock' : 'sound-system';
}

export async function diagnoseStuck(pid: number | undefined, host: HostChoice, env: NodeJS.ProcessEnv = process.env): Promise<StuckReport> {
  let maps = '';
  if (pid !== undefined) maps = await readFile(`/proc/${pid}/maps`, 'utf8').catch(() => '');
  const on = maps ? stuckFromMaps(maps) : host.host === 'jack' ? 'jack-metadata-lock' : 'sound-system';
  return { on, folder: on === 'jack-metadata-lock' ? jackMetadataFolder() : null, jackServer: await findJackServer(env).catch(() => null) };
}

/** The sentence for the UI, the CLI and diagnostics. `what`: "Listing microphones" / "Opening the microphone". */
export function stuckError(what: string, waitedMs: number, r: StuckReport): CoreError {
  const s = Math.round(waitedMs / 1000);
  if (r.on === 'jack-metadata-lock') {
    const server = r.jackServer
      ? `A JACK server is running (${r.jackServer}): stop it, then`
      : 'No JACK server is running, so nothing needs that folder:';
    return new CoreError(
      'Unavailable',
      `${what} is stuck (no answer within ${s} s): the JACK audio library waits for a lock in its metadata folder ${r.folder} that a process which ended never released. ${server} move that folder away or delete it (rm -rf ${r.folder}; it is also cleared by a reboot), then try again. Capture Desk uses ALSA (PulseAudio/PipeWire) instead meanwhile; serial capture and uploads keep working.`,
      { reason: 'audio-stuck', stuck: r.on, folder: r.folder, jackServer: r.jackServer },
    );
  }
  return new CoreError(
    'Unavailable',
    `${what} is stuck (no answer within ${s} s): the sound system (ALSA, PulseAudio or PipeWire) does not respond. Restart the sound server (e.g. "systemctl --user restart pipewire pulseaudio") or the computer, then try again; serial capture and uploads keep working.`,
    { reason: 'audio-stuck', stuck: r.on, folder: null, jackServer: r.jackServer },
  );
}
