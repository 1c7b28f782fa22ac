import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export const PRODUCT_NAME = 'Capture Desk';

/**
 * The same folder Electron's app.getPath('userData') gives for productName "Capture Desk", so the
 * desktop app, `capture-desk serve` and the CLI share one store on a lab laptop by default:
 * %APPDATA%\Capture Desk on Windows, ~/Library/Application Support/Capture Desk on macOS,
 * $XDG_CONFIG_HOME/Capture Desk (else ~/.config/Capture Desk) elsewhere.
 * `pathApi` follows `platform` unless given, so every OS's answer can be checked on any OS.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
  pathApi: typeof path.posix | typeof path.win32 = platform === 'win32' ? path.win32 : path.posix,
): string {
  const { join, isAbsolute } = pathApi;
  // An empty or relative variable is treated as unset, as the XDG spec asks; an empty APPDATA
  // would otherwise put the store in whatever folder the CLI was started from.
  const absolute = (v: string | undefined) => (v && isAbsolute(v) ? v : undefined);
  if (platform === 'win32') return join(absolute(env.APPDATA) ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME);
  return join(absolute(env.XDG_CONFIG_HOME) ?? join(home, '.config'), PRODUCT_NAME);
}

export async function ensureDataDir(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}
