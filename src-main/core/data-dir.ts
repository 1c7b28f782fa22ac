import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PRODUCT_NAME = 'Capture Desk';

/**
 * The same folder Electron's app.getPath('userData') gives for productName "Capture Desk", so the
 * desktop app, `capture-desk serve` and the CLI share one store on a lab laptop by default.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), PRODUCT_NAME);
}

export async function ensureDataDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
