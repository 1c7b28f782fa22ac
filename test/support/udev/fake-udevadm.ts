import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cleanups } from '../cleanups.js';

/**
 * `udevadm info -e` as it answers on a machine with real boards plugged in: a recorded udev
 * database (Arduino Nano 33 BLE, an ESP32 board's CP2102N, a CH340 clone without a serial number,
 * a Nordic DK's J-Link, a Raspberry Pi Pico, the built-in ttyS0, and devices that are no serial
 * port). serialport's Linux listing runs udevadm and parses what it prints, so the code under
 * test lists through its real parser.
 */
export const BOARDS_UDEV = fileURLToPath(new URL('./boards.udev', import.meta.url));

/**
 * A folder holding a `udevadm` that prints `recording` (a file like boards.udev), or `after`
 * from its second run on (a board that was re-plugged at another path); returns the environment
 * that puts it first on PATH.
 */
export async function fakeUdevadm(cleanups: Cleanups, recording: string, after?: string): Promise<NodeJS.ProcessEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-udevadm-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const calls = join(dir, 'calls');
  const script = join(dir, 'udevadm');
  await writeFile(
    script,
    `#!/bin/sh
[ "$1 $2" = "info -e" ] || { echo "fake udevadm: only 'info -e'" >&2; exit 2; }
n=$(cat '${calls}' 2>/dev/null || echo 0)
echo $((n + 1)) > '${calls}'
if [ "$n" -gt 0 ] && [ -n '${after ?? ''}' ]; then exec cat '${after ?? ''}'; fi
exec cat '${recording}'
`,
  );
  await chmod(script, 0o755);
  return { PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` };
}
