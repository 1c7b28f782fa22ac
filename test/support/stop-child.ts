import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * Stops a child process the test started, unless it has ended already, and waits until it has:
 * a clean-up that returned early would leave the child writing into the next test's PTY or folder.
 * `until: 'close'` also waits for its output pipes to be read to the end.
 */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL', until: 'exit' | 'close' = 'exit'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const ended = once(child, until);
  child.kill(signal);
  await ended;
}
