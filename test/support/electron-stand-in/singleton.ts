// app.requestSingleInstanceLock() across processes, the way Chromium does it on Linux: a
// `SingletonLock` symlink in the user-data folder naming "<host>-<pid>" of the owner, and a
// `SingletonSocket` the owner listens on, over which a second instance passes its argv before it quits.
import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';

type OnSecondInstance = (argv: string[], cwd: string, additionalData: unknown) => void;

export class SingletonLock {
  private constructor(private readonly dir: string, private readonly server: Server) {}

  /** The lock, or null when a live process holds it. */
  static acquire(dir: string, onSecond: OnSecondInstance): SingletonLock | null {
    mkdirSync(dir, { recursive: true });
    const lockPath = join(dir, 'SingletonLock');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        symlinkSync(`${hostname()}-${process.pid}`, lockPath);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        if (ownerAlive(lockPath)) return null;
        rmSync(lockPath, { force: true }); // left behind by a crashed instance
      }
    }
    const socketPath = join(dir, 'SingletonSocket');
    rmSync(socketPath, { force: true });
    const server = createServer((conn) => {
      let text = '';
      conn.setEncoding('utf8');
      conn.on('data', (chunk: string) => {
        text += chunk;
        if (!text.endsWith('\n')) return;
        const msg = JSON.parse(text) as { argv: string[]; cwd: string; additionalData: unknown };
        conn.end('ACK\n');
        onSecond(msg.argv, msg.cwd, msg.additionalData);
      });
    });
    server.listen(socketPath);
    return new SingletonLock(dir, server);
  }

  /** What a second instance does before it quits: hand its arguments to the running one. */
  static notifyOwner(dir: string, argv: string[], cwd: string, additionalData: unknown): void {
    const conn = createConnection(join(dir, 'SingletonSocket'));
    conn.on('error', (err) => process.stderr.write(`[electron stand-in] could not reach the running instance: ${err.message}\n`));
    conn.end(JSON.stringify({ argv, cwd, additionalData: additionalData ?? null }) + '\n');
    conn.resume();
  }

  release(): void {
    this.server.close();
    rmSync(join(this.dir, 'SingletonLock'), { force: true });
    rmSync(join(this.dir, 'SingletonSocket'), { force: true });
  }
}

function ownerAlive(lockPath: string): boolean {
  let target: string;
  try {
    target = readlinkSync(lockPath);
  } catch {
    return false;
  }
  const m = /^(.*)-(\d+)$/.exec(target);
  if (!m || m[1] !== hostname()) return false;
  try {
    process.kill(Number(m[2]), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
