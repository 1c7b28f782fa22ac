// Helper of the "model" bench section (no `run` export, nothing happens on import): from a
// window's last reading leaving the board to the window painted in the live strip under the plot,
// in Debian's Chromium driven by Playwright against `capture-desk serve`.
//
// A 3-axis board at the gesture model's rate (model-board.mjs, 62.5 Hz) prints into a socat PTY and
// notes when each line went out; the page opens the port as a person does (Devices → "Open a port
// by path"), so the live plot draws it meanwhile; the model runs on it through model.live.start
// (ModelService: LiveModel on the hub's tap, its worker inside serve, verdicts batched to the
// WebSocket as model.verdicts). The page's own WebSocket is watched from an init script: a listener
// added to the socket the app's api client opens (before the app's own handler) decodes each
// frame with cbor-x (as the client does) and, for model.verdicts, notes the arrival and the next
// animation frame after it; the live strip's canvas paints are watched too (watchVerdicts). Both
// sides read Date.now() (one clock, ms). A Node client of the same serve notes the verdicts' arrival too (serve's share).
//
// Which line ended which window: the board pauses, the model is started in the pause, and the
// board carries on from line L0: LiveModel's windower counts rows from its start, and with the
// board's rate equal to the model's (no resampling) a verdict's endMs is endRow / rate, so the
// window's last line is L0 + endRow - 1.
import { fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { firstValue } from './model-board.mjs';
import { connectClient, openPtyPair, startServe } from './serial-procs.mjs';

const BOARD = fileURLToPath(new URL('./model-board.mjs', import.meta.url));
const CBOR = fileURLToPath(new URL('../../node_modules/cbor-x/dist/index-no-eval.min.js', import.meta.url));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs in the page before its scripts: watches model.verdicts on the app's own WebSocket, and the
 * live strip's paints (LiveModelStrip.svelte: clearRect, then one fillRect per window piece): the
 * right edge of what each paint drew. A new window adds a piece on the right, so a paint whose right
 * edge lies further right than the last one's is the first paint showing a new window (the plot's
 * scrolling only moves pieces left).
 */
function watchVerdicts() {
  globalThis.__modelVerdicts = [];
  globalThis.__stripPaints = [];
  const STRIP = 'model-strip-canvas';
  const proto = globalThis.CanvasRenderingContext2D.prototype;
  const clearRect = proto.clearRect;
  const fillRect = proto.fillRect;
  let paint = null;
  proto.clearRect = function (...a) {
    if (this.canvas?.dataset?.testid === STRIP) {
      paint = { t: Date.now(), right: null };
      globalThis.__stripPaints.push(paint);
    }
    return clearRect.apply(this, a);
  };
  proto.fillRect = function (x, y, w, h) {
    if (paint && this.canvas?.dataset?.testid === STRIP) paint.right = Math.max(paint.right ?? -Infinity, x + w);
    return fillRect.call(this, x, y, w, h);
  };
  const decoder = new globalThis.CBOR.Decoder({ useRecords: false, mapsAsObjects: true });
  const Native = globalThis.WebSocket;
  globalThis.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        const arrived = Date.now();
        if (!(ev.data instanceof ArrayBuffer)) return;
        let m;
        try {
          m = decoder.decode(new Uint8Array(ev.data));
        } catch {
          return;
        }
        if (m?.t !== 'event' || m.name !== 'model.verdicts') return;
        const got = m.payload.verdicts.map((v) => ({ index: v.index, endMs: v.endMs, label: v.label, arrived, drawn: null }));
        requestAnimationFrame(() => {
          const drawn = Date.now();
          for (const g of got) g.drawn = drawn;
        });
        globalThis.__modelVerdicts.push(...got);
      });
    }
  };
}

function startBoard(path, rateHz) {
  const child = fork(BOARD, [path, String(rateHz)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = (msg, type) => new Promise((resolve, reject) => {
    const on = (m) => m.type === type && (child.off('message', on), resolve(m));
    child.on('message', on);
    child.once('exit', (code) => reject(new Error(`the board exited with ${code} before '${type}'`)));
    if (msg) child.send(msg);
  });
  return { ready: ask(null, 'ready'), ask, send: (msg) => child.send(msg), kill: () => child.kill() };
}

/**
 * The board at `rateHz` (= the model's rate), the model `model` (frameSampleCount `windowRows`) at
 * `strideMs`, verdicts watched for `seconds`. Returns per window: board time of its last line,
 * arrival in the page, frame after it.
 */
export async function pageLatency({ cli, dir, dataDir, model, rateHz, windowRows, strideMs, seconds, say }) {
  const cleanup = [];
  try {
    const pty = await openPtyPair(dir);
    cleanup.unshift(() => pty.close());
    const board = startBoard(pty.board, rateHz);
    cleanup.unshift(() => board.kill());
    await board.ready;
    const serve = await startServe(cli, dataDir);
    cleanup.unshift(() => serve.stop());
    // A Node client of the same serve notes when each verdict reached it too: serve's share of the
    // time (the board, the PTY, the core, the WebSocket) apart from the browser's.
    const atClient = new Map();
    const client = await connectClient(serve.wsUrl, (name, p) => {
      if (name !== 'model.verdicts') return;
      const now = Date.now();
      for (const v of p.verdicts) atClient.set(v.endMs, now);
    });
    cleanup.unshift(() => client.close());
    // The person says the board's rate (Settings of the port), so the stream's rate is exact and
    // equal to the model's: no resampling, one line per model row.
    await client.call('serial.addPath', { path: pty.host });
    await client.call('serial.setSettings', { path: pty.host, settings: { frequencyHz: rateHz } });
    const sourceId = `serial:${pty.host}`;

    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    cleanup.unshift(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript({ path: CBOR });
    await page.addInitScript(watchVerdicts);
    await page.goto(serve.url);
    await page.getByLabel('Open a port by path').fill(pty.host);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByTestId('stream-stats').filter({ hasText: 'value3' }).waitFor({ timeout: 20_000 });
    await sleep(1500);

    const { next: first } = await board.ask({ type: 'pause' }, 'paused');
    await sleep(1200); // every line before the pause has reached the hub
    // Running already: this answers the stream's info as it is now (the rate LiveModel will take).
    const info = await client.call('stream.start', { sourceId });
    const live = await client.call('model.live.start', { sourceId, model, strideMs });
    board.send({ type: 'resume' });
    const load0 = loadavg()[0];
    say?.(`model on the board from line ${first}, stride ${live.strideMs} ms; watching the page for ${seconds} s…`);
    await sleep(seconds * 1000);
    const seen = await page.evaluate(() => globalThis.__modelVerdicts.filter((v) => v.drawn !== null));
    const paints = await page.evaluate(() => globalThis.__stripPaints);
    // Paints that showed a new window: the right edge moved right (by more than half a pixel).
    const shows = [];
    let lastRight = null;
    for (const p of paints) {
      if (p.right === null) continue;
      if (lastRight === null || p.right > lastRight + 0.5) shows.push(p.t);
      lastRight = p.right;
    }
    const [status] = (await client.call('model.live.status', {})).filter((s) => s.sourceId === sourceId);
    await client.call('model.live.stop', { sourceId });
    const { times } = await board.ask({ type: 'times', from: first }, 'times');
    const resampled = live.notes.some((t) => /resampled/.test(t));
    const rows = [];
    let misplaced = 0;
    let wrongLabel = 0;
    for (const v of seen) {
      // Same rate (no resampling): the windower gives endMs = endRow / rate, endRow counted from
      // the first row it got (line `first`), exclusive.
      const exact = (v.endMs * info.rateHz) / 1000;
      const endRow = Math.round(exact);
      if (resampled || Math.abs(exact - endRow) > 0.01 || endRow < windowRows) {
        misplaced++;
        continue;
      }
      const wrote = times[endRow - 1];
      if (wrote === undefined) continue;
      // The gesture test model's rule (mean |first value| of the window ≥ 2: wave) on the lines
      // counted for this window: a verdict that disagrees was not made of those lines.
      let sum = 0;
      for (let r = endRow - windowRows; r < endRow; r++) sum += Math.abs(firstValue(first + r, rateHz));
      if ((sum / windowRows >= 2 ? 'wave' : 'idle') !== v.label) wrongLabel++;
      const node = atClient.get(v.endMs);
      const shown = shows.find((t) => t >= v.arrived);
      rows.push({ index: v.index, arrival: v.arrived - wrote, drawn: v.drawn - wrote, node: node === undefined ? null : node - wrote, strip: shown === undefined ? null : shown - wrote });
    }
    return {
      rows, misplaced, wrongLabel, stripPaints: paints.length, stripShows: shows.length, verdicts: seen.length, windows: status?.windows ?? null, skipped: status?.skipped ?? null,
      strideMs: live.strideMs, firstLine: first, sourceHz: info.rateHz, notes: live.notes, load: { start: load0, end: loadavg()[0] },
    };
  } finally {
    for (const step of cleanup) await Promise.resolve().then(step).catch(() => {});
  }
}
