// `npm run bench live-plot`: the live plot at 16 channels × 1 kHz with its 10 s window, in Debian's
// Chromium driven by Playwright: a 16-axis line board on a socat PTY → `capture-desk serve` →
// WebSocket → the real renderer. Figures: p95 work per drawn frame (decimate + uPlot draw; target
// < 16 ms, one display frame), the p95 interval between animation frames (for reference), and the
// renderer's JS heap after a forced GC at the start and at the end (target: no growth).
//
// CAPTURE_DESK_BENCH_PLOT_SECONDS sets the run length (default 300 s, as the issue asks).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { openPtyPair, startServe } from './serial-procs.mjs';

const CLI = fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const LINE_BOARD = fileURLToPath(new URL('../support/boards/line-board.mjs', import.meta.url));
const CHANNELS = 16;
const RATE_HZ = 1000;
/** Heap growth we accept between the first and last GC'd reading: noise, not a leak. */
const HEAP_GROWTH_LIMIT = 5 * 1024 * 1024;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function run() {
  const seconds = Number(process.env.CAPTURE_DESK_BENCH_PLOT_SECONDS ?? 300);
  const dir = await mkdtemp(join(tmpdir(), 'cd-bench-plot-'));
  const pty = await openPtyPair(dir);
  const board = spawn(process.execPath, [LINE_BOARD, '--port', pty.board, '--rate', String(RATE_HZ), '--axes', String(CHANNELS), '--noise', '0.2'], { stdio: 'ignore' });
  const serve = await startServe(CLI, join(dir, 'data'));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
    await page.addInitScript(() => {
      globalThis.__captureDeskPlotFrames = [];
      globalThis.__captureDeskRafGaps = [];
      let last = 0;
      const tick = (t) => {
        if (last) globalThis.__captureDeskRafGaps.push(t - last);
        last = t;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    await page.goto(serve.url);
    await page.getByLabel('Open a port by path').fill(pty.host);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByTestId('stream-stats').filter({ hasText: `value${CHANNELS}` }).waitFor({ timeout: 20_000 });
    // Let the 10 s window fill before measuring: a full window is the steady state.
    await page.waitForTimeout(12_000);
    const cdp = await page.context().newCDPSession(page);
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return (await cdp.send('Runtime.getHeapUsage')).usedSize;
    };
    const drain = () => page.evaluate(() => ({ frames: globalThis.__captureDeskPlotFrames.splice(0), gaps: globalThis.__captureDeskRafGaps.splice(0) }));
    await drain();
    const heapStart = await heap();
    const rowsStart = Number(await page.getByTestId('rows-received').textContent());
    const frames = [];
    const gaps = [];
    const heaps = [heapStart];
    const t0 = Date.now();
    while (Date.now() - t0 < seconds * 1000) {
      await page.waitForTimeout(Math.min(10_000, seconds * 1000 - (Date.now() - t0)));
      const d = await drain();
      frames.push(...d.frames);
      gaps.push(...d.gaps);
      if (frames.length && Date.now() - t0 > 30_000 && heaps.length < Math.floor((Date.now() - t0) / 30_000) + 1) heaps.push(await heap());
    }
    const rowsEnd = Number(await page.getByTestId('rows-received').textContent());
    const heapEnd = await heap();
    frames.sort((a, b) => a - b);
    gaps.sort((a, b) => a - b);
    const elapsed = (Date.now() - t0) / 1000;
    const p95 = pct(frames, 95);
    const growth = heapEnd - heapStart;
    return [
      {
        name: `live plot ${CHANNELS} ch × ${RATE_HZ} Hz, 10 s window: p95 work per drawn frame`, value: p95, unit: 'ms', target: '< 16 ms', pass: p95 < 16,
        detail: `${frames.length} frames drawn in ${elapsed.toFixed(0)} s; median ${pct(frames, 50).toFixed(2)} ms, p99 ${pct(frames, 99).toFixed(2)} ms, max ${frames.at(-1)?.toFixed(2)} ms; rows received ${(rowsEnd - rowsStart).toLocaleString('en-US')} (${((rowsEnd - rowsStart) / elapsed).toFixed(0)}/s)`,
      },
      { name: 'live plot: p95 interval between animation frames', value: pct(gaps, 95), unit: 'ms', target: 'reference (16.7 ms = 60 fps)', pass: null, detail: `median ${pct(gaps, 50).toFixed(2)} ms over ${gaps.length} frames` },
      {
        name: `live plot: renderer JS heap growth over ${elapsed.toFixed(0)} s (after GC)`, value: growth / 1024 / 1024, unit: 'MB', target: `< ${HEAP_GROWTH_LIMIT / 1024 / 1024} MB`, pass: growth < HEAP_GROWTH_LIMIT,
        detail: `heap after GC every 30 s: ${heaps.concat(heapEnd).map((h) => (h / 1024 / 1024).toFixed(1)).join(', ')} MB`,
      },
    ];
  } finally {
    await browser.close();
    await serve.stop();
    board.kill('SIGKILL');
    await pty.close();
    await rm(dir, { recursive: true, force: true });
  }
}
