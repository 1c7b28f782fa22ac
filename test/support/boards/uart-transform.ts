import { spawnSync } from 'node:child_process';
import { UART_PTY } from './pty.js';

/** One job for the UART sampler of uart-pty.py: `data` sent at `from` baud, read at `to`. */
export interface UartJob {
  from: number;
  to: number;
  data: Buffer;
  /** serialport sets IGNPAR: framing errors are dropped. Without it they arrive as NULs. */
  ignpar?: boolean;
  /** Each line is its own burst, idle between them (a board printing a line per reading). */
  splitLines?: boolean;
}

/**
 * What a UART at `to` reads from a board at `from`, from the very sampler the emulated board runs
 * (uart-pty.py --transform-batch), so unit tests judge a real UART's garbage, not random bytes.
 */
export function uartTransform(jobs: UartJob[]): Buffer[] {
  const input = jobs.map((j) => JSON.stringify({ from: j.from, to: j.to, data: j.data.toString('base64'), ignpar: j.ignpar ?? false, split_lines: j.splitLines ?? false })).join('\n') + '\n';
  const r = spawnSync('python3', [UART_PTY, '--transform-batch'], { input, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`uart-pty.py --transform-batch failed: ${r.stderr?.toString() || r.error?.message}`);
  return r.stdout.toString().trim().split('\n').map((l) => Buffer.from((JSON.parse(l) as { data: string }).data, 'base64'));
}
