import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';

/** A process that has a file open, as /proc names it. */
export interface PortHolder {
  pid: number;
  /** /proc/PID/comm: the program's name as the kernel keeps it (at most 15 characters). */
  name: string;
}

/** Who may open a device file, as the system has it. */
export interface DeviceAccess {
  gid: number;
  /** The group's name in /etc/group; null when the gid has no entry. */
  group: string | null;
  /** Permission bits (0o660 for crw-rw----). */
  mode: number;
  /** Users /etc/group lists as members of that group (a user added since this session began is here, not in our groups). */
  members: string[];
}

/**
 * What Linux tells about a serial port that would not open: the processes holding it (from
 * /proc/PID/fd, the way fuser and lsof find them) and who may open it. Only the processes this
 * user may look into are seen: as a normal user, another user's program holding the port is not.
 */
export interface PortSystem {
  holders(path: string): Promise<PortHolder[]>;
  access(path: string): Promise<DeviceAccess | null>;
  /** The groups this process runs with (a group joined after login is not among them until the next login). */
  ownGroups(): number[];
  userName(): string;
}

export function linuxPortSystem(proc = '/proc', groupFile = '/etc/group'): PortSystem {
  return {
    async holders(path) {
      const all = await openers(proc, path);
      // serialport's "Cannot lock port" means someone holds its flock; others may just have it
      // open (a pseudo-terminal's relay holds its own end). /proc/locks names the lock's holders.
      const ino = (await stat(path).catch(() => null))?.ino;
      const locks = await readFile(`${proc}/locks`, 'utf8').catch(() => '');
      const locking = new Set([...locks.matchAll(/^\d+:\s+FLOCK\s+\S+\s+\S+\s+(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)/gim)].filter((m) => Number(m[2]) === ino).map((m) => Number(m[1])));
      const lockers = all.filter((h) => locking.has(h.pid));
      return lockers.length ? lockers : all;
    },
    async access(path) {
      const st = await stat(path).catch(() => null);
      if (!st) return null;
      const entry = (await readFile(groupFile, 'utf8').catch(() => ''))
        .split('\n')
        .map((l) => l.split(':'))
        .find((f) => f.length >= 4 && Number(f[2]) === st.gid);
      return {
        gid: st.gid,
        group: entry?.[0] ?? null,
        mode: st.mode & 0o777,
        members: entry?.[3]?.split(',').map((m) => m.trim()).filter(Boolean) ?? [],
      };
    },
    ownGroups: () => process.getgroups?.() ?? [],
    userName: () => process.env.USER ?? process.env.LOGNAME ?? '',
  };
}

/** Processes with `path` open, from their /proc/PID/fd links. */
async function openers(proc: string, path: string): Promise<PortHolder[]> {
  const target = await realpath(path).catch(() => path);
  const pids = (await readdir(proc).catch(() => [] as string[])).filter((d) => /^\d+$/.test(d));
  const found: PortHolder[] = [];
  await Promise.all(
    pids.map(async (pid) => {
      const fds = await readdir(`${proc}/${pid}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        if ((await readlink(`${proc}/${pid}/fd/${fd}`).catch(() => '')) !== target) continue;
        const name = (await readFile(`${proc}/${pid}/comm`, 'utf8').catch(() => '?')).trim();
        found.push({ pid: Number(pid), name });
        return;
      }
    }),
  );
  return found.sort((a, b) => a.pid - b.pid);
}
