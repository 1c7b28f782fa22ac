import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';
import { DEFAULT_DEVICE_ID, type AudioDevice } from './worker-protocol.js';

/**
 * The microphone the user picked, remembered in the data directory (audio-device.json) so the
 * app, `serve` and the CLI start with it. The name is kept too: a device's id changes if its
 * channel count does, and then the same name finds it again.
 */
export const AudioChoice = z.object({
  deviceId: z.string().min(1),
  name: z.string(),
  sampleRate: z.number().int().min(8000).max(48_000).optional(),
  /** Pre-roll the app's recordings keep (the CLI takes it as an option). */
  preRollMs: z.number().int().min(0).max(10_000).optional(),
});
export type AudioChoice = z.infer<typeof AudioChoice>;

const FILE = 'audio-device.json';

export async function loadAudioChoice(dataDir: string, log: Logger): Promise<AudioChoice | null> {
  let text: string;
  try {
    text = await readFile(join(dataDir, FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    return AudioChoice.parse(JSON.parse(text));
  } catch (err) {
    log.warn('ignoring an unreadable audio device choice', { file: FILE, error: String(err) });
    return null;
  }
}

export async function saveAudioChoice(dataDir: string, choice: AudioChoice): Promise<void> {
  await writeFileAtomic(join(dataDir, FILE), JSON.stringify(AudioChoice.parse(choice), null, 2) + '\n');
}

export interface ResolvedDevice {
  device: AudioDevice;
  /** Set when the remembered device could not be used as it was; say it to the user. */
  note: string | null;
}

/** Which device to open: the remembered one (by id, else by name), else the system default. */
export function resolveDevice(devices: AudioDevice[], choice: AudioChoice | null): ResolvedDevice | null {
  const fallback = devices.find((d) => d.id === DEFAULT_DEVICE_ID) ?? devices[0];
  if (!fallback) return null;
  if (!choice) return { device: fallback, note: null };
  const byId = devices.find((d) => d.id === choice.deviceId);
  if (byId) return { device: byId, note: null };
  const byName = devices.find((d) => d.name === choice.name && d.id !== DEFAULT_DEVICE_ID);
  if (byName) return { device: byName, note: `The remembered microphone "${choice.name}" has a new id (${byName.id}); using it.` };
  return { device: fallback, note: `The remembered microphone "${choice.name}" is not connected; using ${fallback.name}.` };
}
