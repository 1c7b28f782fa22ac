import { stat } from 'node:fs/promises';

/**
 * What a path given as a serial port is when it plainly is not one: a folder or a regular file
 * (a typo, a tab-completed /tmp). Said before opening, since the system's own answer ("Inappropriate
 * ioctl for device", or nothing found) sends the person looking at the board. Null: a device, or
 * nothing there (said where it is opened). Windows ports (COM5) are no files: never looked at.
 */
export async function notAPort(path: string, platform: NodeJS.Platform = process.platform): Promise<'folder' | 'regular file' | null> {
  if (platform === 'win32') return null;
  const st = await stat(path).catch(() => null);
  if (st?.isDirectory()) return 'folder';
  if (st?.isFile()) return 'regular file';
  return null;
}
