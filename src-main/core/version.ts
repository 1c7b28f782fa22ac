/**
 * Filled in by the bundler from package.json (see the esbuild `define`s in package.json); under
 * vitest the fallbacks apply. Avoids reading package.json at run time from inside an asar.
 */
declare const __APP_VERSION__: string | undefined;
export const APP_NAME = 'Capture Desk';
export const APP_VERSION: string = typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : '0.0.0-dev';
