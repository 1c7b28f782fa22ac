import { chmod, chown, mkdtemp, realpath } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdPort } from '../support/boards/board-on-pty.js';
import { openPtyPair } from '../support/boards/pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';

const cleanups = useCleanups();

/** A data directory anyone may write (the unprivileged run writes its settings and log there). */
async function openDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cd-open-errors-'));
  await chmod(dir, 0o777);
  return dir;
}

const gid = (group: string) => Number(execFileSync('getent', ['group', group], { encoding: 'utf8' }).split(':')[2]);
const isRoot = process.getuid?.() === 0;

describe('a port that will not open says why (real files)', () => {
  // Root opens any file whatever its mode: the CLI runs as "nobody" with no groups, as a lab user
  // not yet in the port's group would. uucp is the serial group on Arch and Fedora.
  it.runIf(isRoot)('permission: names the device\'s group as the system has it and the command that lets the user in', async () => {
    const pty = await openPtyPair();
    cleanups.push(() => pty.close());
    const device = await realpath(pty.hostPath); // /dev/pts/N: nobody cannot reach the link in root's temporary folder
    await chown(device, 0, gid('uucp'));
    await chmod(device, 0o660);
    const r = await runCli(['record', 'serial', '--port', device, '--length-ms', '500', '--data-dir', await openDataDir()], { unprivileged: true });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`Permission denied opening ${device}: it belongs to group "uucp", which you are not in. Run: sudo usermod -aG uucp $USER, then log out and in; or install the udev rule in resources/linux/99-capture-desk.rules`);

    // Mode 0600: no group may open it, joining one would not help: the udev rule does.
    await chmod(device, 0o600);
    const closed = await runCli(['record', 'serial', '--port', device, '--length-ms', '500', '--data-dir', await openDataDir()], { unprivileged: true });
    expect(closed.stderr).toMatch(/belongs to group "uucp" with mode crw-------, which lets no group member open it\. Install the udev rule/);
  });

  /** `record serial` on a PTY that a program named `title` holds open and flocked: its stderr, and the holder's pid. */
  async function recordHeldPort(title: string) {
    const pty = await openPtyPair();
    cleanups.push(() => pty.close());
    const holder = await holdPort(cleanups, pty.hostPath, title);
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--length-ms', '500', '--data-dir', await openDataDir()]);
    expect(r.code, r.stderr).toBe(1);
    return { stderr: r.stderr, port: pty.hostPath, pid: holder.pid };
  }

  it('busy: names the program holding the port and its pid (not the PTY relay that also has it open)', async () => {
    const { stderr, port, pid } = await recordHeldPort('arduino-ide');
    expect(stderr).toContain(`${port} is held by arduino-ide (pid ${pid}). Close that program (or its serial monitor) and try again.`);
  });

  it('busy: ModemManager is named with the udev rule that keeps it away', async () => {
    const { stderr, port, pid } = await recordHeldPort('ModemManager');
    expect(stderr).toContain(`${port} is held by ModemManager (pid ${pid}), which probes a newly plugged board`);
    expect(stderr).toContain('ENV{ID_MM_DEVICE_IGNORE}="1"');
  });
});
