// Helper of the "model" bench section (no `run` export, nothing happens on import): the 3-axis
// line board at the serial benchmark's rate with a model running on it, through the app's own
// serial path. The serial section's paced writer (serial-writer.mjs: line i carries i) prints into
// a socat PTY; `capture-desk serve` (serialport, line reader, stream hub) reads it; a contract
// client here checks every row of the stream.batch events, as the serial section does
// (serial-stream.mjs's rowChecker and writer), while model.live.start runs the gesture test model on the same
// source (ModelService → LiveModel on a hub tap → the model's worker thread inside serve).
import { loadavg } from 'node:os';
import { connectClient, openPtyPair, procStat, startServe } from './serial-procs.mjs';
import { rowChecker, startWriter } from './serial-stream.mjs';

const DRAIN_MS = 10_000;
/** Longest wait for the measured rate to settle before the model starts. */
const SETTLE_MAX_MS = 2000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `rate` lines/s for `seconds` into serve on `dataDir` (which holds the model `model`), the model
 * running at `strideMs` from the moment the stream's rate is known. Returns lines written and
 * lost, the model's windows and skips, serve's CPU.
 */
export async function serialWithModel({ cli, dir, dataDir, model, rate, seconds, strideMs }) {
  const cleanup = [];
  try {
    const pty = await openPtyPair(dir);
    cleanup.unshift(() => pty.close());
    const serve = await startServe(cli, dataDir);
    cleanup.unshift(() => serve.stop());
    const sourceId = `serial:${pty.host}`;
    const check = rowChecker(sourceId, Math.round(rate * seconds));
    let info = null;
    let status = null;
    let verdicts = 0;
    let firstVerdictAt = null;
    let lastIndex = -1; // windows are numbered as cut: the last verdict's index + 1 were cut by then
    const client = await connectClient(serve.wsUrl, (name, p) => {
      if (name === 'stream.batch') check.onBatch(p);
      else if (name === 'stream.info' && p.sourceId === sourceId) info = p;
      else if (name === 'model.live' && p.sourceId === sourceId) status = p;
      else if (name === 'model.verdicts' && p.sourceId === sourceId) {
        verdicts += p.verdicts.length;
        firstVerdictAt ??= performance.now();
        for (const v of p.verdicts) lastIndex = Math.max(lastIndex, v.index);
      }
    });
    cleanup.unshift(() => client.close());
    const writer = startWriter(pty.board, rate, seconds);
    cleanup.unshift(() => writer.kill());
    await writer.ready;

    await client.call('serial.addPath', { path: pty.host });
    const started = client.call('stream.start', { sourceId });
    await sleep(300);
    writer.go();
    const wentAt = performance.now();
    info = (await started) ?? info;
    // The line reader measures the rate from arrivals (until then the source says 1 Hz) and says it
    // again whenever it moves by more than 1 %. LiveModel takes the source's rate once, when it
    // starts: the model is started once the rate has held still for a second.
    let infoAt = performance.now();
    let last = info;
    while (performance.now() - wentAt < SETTLE_MAX_MS) {
      if (info !== last) [last, infoAt] = [info, performance.now()];
      if ((info?.rateHz ?? 0) >= 1000 && performance.now() - infoAt >= 1000) break;
      await sleep(50);
    }
    const rateAtStart = info?.rateHz ?? null;
    const serve0 = await procStat(serve.pid);
    const model0 = performance.now();
    const load0 = loadavg()[0];
    const live = await client.call('model.live.start', { sourceId, model, strideMs });
    status = live;
    const wrote = await writer.done;
    const end = wrote.written;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, DRAIN_MS);
      check.onProgress = () => {
        if (check.maxLine < end - 1) return;
        clearTimeout(timer);
        check.onProgress = null;
        resolve();
      };
      check.onProgress();
    });
    const modelMs = performance.now() - model0;
    const serve1 = await procStat(serve.pid);
    const [final] = (await client.call('model.live.status', {})).filter((s) => s.sourceId === sourceId);
    await client.call('model.live.stop', { sourceId });
    await client.call('stream.stop', { sourceId });
    const missing = check.missing(1, end);
    return {
      rate, seconds, written: end, writerMs: wrote.ms, received: check.rows, missing, wrongRows: check.wrongRows, duplicates: check.duplicates, seqGaps: check.seqGaps,
      rowsPerSecond: (check.rows - check.firstRows) / ((check.lastAt - check.firstAt) / 1000),
      measuredHz: info?.rateHz ?? null, rateAtStart,
      model: { windows: final?.windows ?? status?.windows ?? 0, skipped: final?.skipped ?? status?.skipped ?? 0, verdicts, cut: lastIndex + 1, notes: live.notes, strideMs: live.strideMs, state: final?.state ?? status?.state, error: final?.error ?? null, ranMs: modelMs,
        /** From the first verdict to the last line's arrival: the time lines came in while the model classified. */
        classifyingMs: firstVerdictAt === null ? 0 : Math.max(0, check.lastAt - firstVerdictAt) },
      serveCpu: serve0 && serve1 ? ((serve1.cpuSeconds - serve0.cpuSeconds) / (modelMs / 1000)) * 100 : null,
      serveRss: serve1?.rss ?? null,
      load: { start: load0, end: loadavg()[0] },
      stderr: serve.stderr(),
    };
  } finally {
    for (const step of cleanup) await Promise.resolve().then(step).catch(() => {});
  }
}

