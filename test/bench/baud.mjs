// Baud section (issue 43): how long Auto takes to find a board's baud rate, on a real PTY.
//
// For each rate the search tries, a line board printing 10 lines/s (test/support/boards/
// line-board.mjs, the slowest "≥ 10 lines/s") sits behind the emulated UART
// (test/support/boards/uart-pty.py): at any other rate the host reads what a real UART would. The
// port is opened through serialport as the app opens it (src-main/core/serial/baud/open-at-rate.ts,
// bundled with esbuild), and the time from open to the rate found is measured, first with nothing
// remembered (the whole order tried up to it), then with the rate remembered for the board.
// Targets (the issue): within 3 s, within 1 s when remembered. Needs python3.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleTs } from './ts-bundle.mjs';

const LINES_PER_S = Number(process.env.BENCH_BAUD_LINES_PER_S ?? 10);
const src = (p) => fileURLToPath(new URL(`../../${p}`, import.meta.url));
const BOARD = src('test/support/boards/line-board.mjs');
const UART = src('test/support/boards/uart-pty.py');
const quiet = { info() {}, warn() {}, error() {} };

/** The emulated UART's PTY pair (as test/support/boards/pty.ts starts it), once it relays. */
async function uartPair(baud) {
  const dir = await mkdtemp(join(tmpdir(), 'cd-bench-uart-'));
  const hostPath = join(dir, 'host');
  const boardPath = join(dir, 'board');
  const p = spawn('python3', [UART, '--board-baud', String(baud), hostPath, boardPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  await new Promise((resolve, reject) => {
    p.stderr.setEncoding('utf8').on('data', (d) => ((log += d), log.includes('starting data transfer loop') && resolve()));
    p.once('exit', (code) => reject(new Error(`uart-pty.py exited (${code}): ${log}`)));
  });
  return {
    hostPath, boardPath,
    close: async () => {
      p.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function run() {
  const b = await bundleTs({
    open: src('src-main/core/serial/baud/open-at-rate.ts'),
    rates: src('src-main/core/serial/baud/baud-rates.ts'),
    memory: src('src-main/core/serial/baud/baud-memory.ts'),
    opener: src('src-main/core/serial/serialport-opener.ts'),
  }, 'cd-bench-baud-');
  const [{ openAtRate }, { BAUD_ORDER }, { BaudMemory }, { serialportOpener }] = await Promise.all(['open', 'rates', 'memory', 'opener'].map((n) => b.load(n)));
  const dataDir = await mkdtemp(join(tmpdir(), 'cd-bench-baud-data-'));
  const fresh = [];
  const remembered = [];
  try {
    for (const baud of BAUD_ORDER) {
      const pty = await uartPair(baud);
      const board = spawn(process.execPath, [BOARD, '--port', pty.boardPath, '--rate', String(LINES_PER_S)], { stdio: 'ignore' });
      try {
        await new Promise((r) => setTimeout(r, 300));
        for (const [list, memoryOn] of [[fresh, false], [remembered, true]]) {
          const memory = await BaudMemory.open(dataDir, async () => undefined, quiet);
          const d = { opener: serialportOpener, log: quiet, now: () => performance.now(), bauds: memoryOn ? memory : undefined };
          const t0 = performance.now();
          const { link, baud: found } = await openAtRate(d, pty.hostPath, { baudRate: 'auto', mode: 'lines', frequencyHz: null, axes: null, units: null });
          const ms = performance.now() - t0;
          await link.close();
          if (found.rate !== baud) throw new Error(`a ${baud}-baud board was found at ${found.rate}`);
          if (!memoryOn) await memory.remember(pty.hostPath, found.rate);
          list.push({ baud, ms, tried: found.tried.length });
        }
      } finally {
        board.kill('SIGKILL');
        await pty.close();
      }
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(b.dir, { recursive: true, force: true });
  }
  const worst = (l) => l.reduce((a, x) => (x.ms > a.ms ? x : a));
  const per = (l) => l.map((x) => `${x.baud}: ${(x.ms / 1000).toFixed(2)} s`).join(', ');
  const wf = worst(fresh);
  const wr = worst(remembered);
  return [
    { name: `baud: found, slowest of ${fresh.length} rates (${LINES_PER_S} lines/s)`, value: wf.ms / 1000, unit: `s (${wf.baud}, after ${wf.tried} others)`, target: '≤ 3 s', pass: wf.ms <= 3000, detail: per(fresh) },
    { name: 'baud: found when remembered, slowest', value: wr.ms / 1000, unit: `s (${wr.baud})`, target: '≤ 1 s', pass: wr.ms <= 1000, detail: per(remembered) },
  ];
}
