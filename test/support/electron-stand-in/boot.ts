// What the Electron binary does with an app folder, for the stand-in: read its package.json,
// load its "main" (an ES module here), then emit 'ready'. Run as `node boot.js <app folder>`.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installDriver } from './driver.js';
import { standIn } from './index.js';

const appDir = resolve(process.argv[2] ?? '.');
const pkg = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as { main?: string; name?: string; productName?: string; version?: string };
standIn.setAppDir(appDir, pkg);
// What Electron's main process adds to Node's process object.
Object.defineProperty(process.versions, 'electron', { value: process.env.ELECTRON_STAND_IN_VERSION ?? '0.0.0-stand-in', enumerable: true });
Object.assign(process, { type: 'browser', resourcesPath: dirname(appDir) });
// A packaged Electron app sees its own executable first, then the user's arguments.
process.argv = [process.execPath, ...process.argv.slice(3)];
// Electron ends the process itself; the app under test must not need to (see App.#end).
const exit = process.exit.bind(process);
process.exit = ((code?: number) => {
  process.stderr.write(`[electron stand-in] process.exit(${code ?? ''}) called\n`);
  return exit(code);
}) as typeof process.exit;
installDriver();
await import(pathToFileURL(join(appDir, pkg.main ?? 'index.js')).href);
standIn.app.markReady();
