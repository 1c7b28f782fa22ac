// Helper of the "serial" bench section (no `run` export, nothing happens on import): a board that
// prints numeric lines into one end of a PTY pair as fast as a fast sensor would. Run as a child
// process, because writing into a PTY from the process that reads the other end deadlocks.
//
//   node serial-writer.mjs PATH RATE SECONDS      (forked with IPC; starts on {type:'go'})
//
// Line i is `<i mod 2^24>,<wobble>,9.81\r\n`: the first value is the line's index (wrapped at 2^24,
// where Float32, the type of the stream's batches, stops holding every integer exactly), so the
// reader of the other end can tell exactly which lines it got. Lines are paced on the wall clock
// (due = elapsed × RATE) in 5 ms slices; a full PTY (write() returns false) is waited out with
// 'drain' and the lines that fell due meanwhile go out in the next slice, so a slow reader shows as
// the writer falling behind. RATE "max": no pacing, lines go out as fast as PATH takes them until
// SECONDS have passed (what the writer and the PTY can do without the core).
// When done it sends {type:'done', written, ms, maxLagLines, maxLagAtMs, maxDrainMs, maxTickGapMs,
// cpuMs} and exits: a long drain wait means the PTY (the core) pushed back, a long tick gap that
// this process itself was not scheduled.
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SLICE_MS = 5;
/** Most lines per write, so one catch-up burst after a stall stays a reasonable chunk. */
const MAX_LINES_PER_WRITE = 4000;
/** Line indexes wrap here: Float32 holds every integer below 2^24 exactly. */
export const INDEX_WRAP = 2 ** 24;

/** The text of lines [from, to). */
function linesText(from, to) {
  let s = '';
  for (let i = from; i < to; i++) s += `${i % INDEX_WRAP},${((i % 2000) - 1000) / 1000},9.81\r\n`;
  return s;
}

function write(path, rate, seconds) {
  const unpaced = rate === 'max';
  const total = unpaced ? Infinity : Math.round(rate * seconds);
  const out = createWriteStream(path);
  out.on('error', (err) => {
    process.stderr.write(`serial-writer: ${err.message}\n`);
    process.exit(2);
  });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let written = 0;
  let waiting = false;
  let finished = false;
  let maxLagLines = 0;
  let maxLagAtMs = 0;
  let maxDrainMs = 0; // longest wait for the PTY to take more (the reader pushing back)
  let lastTick = t0;
  let maxTickGapMs = 0; // longest gap between slices (this process not being scheduled)
  const finish = () => {
    finished = true;
    clearInterval(timer);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    out.end(() => process.send({ type: 'done', written, ms, maxLagLines, maxLagAtMs, maxDrainMs, maxTickGapMs, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.exit(0)));
  };
  const tick = () => {
    if (finished) return;
    const now = performance.now();
    maxTickGapMs = Math.max(maxTickGapMs, now - lastTick);
    lastTick = now;
    if (waiting) return;
    if (unpaced && now - t0 >= seconds * 1000) return finish();
    const due = unpaced ? written + MAX_LINES_PER_WRITE : Math.min(total, Math.floor(((now - t0) * rate) / 1000));
    if (!unpaced && due - written > maxLagLines) [maxLagLines, maxLagAtMs] = [due - written, now - t0];
    while (written < due && !waiting) {
      const to = Math.min(due, written + MAX_LINES_PER_WRITE);
      const ok = out.write(linesText(written, to));
      written = to;
      if (!ok) {
        waiting = true;
        const since = performance.now();
        out.once('drain', () => {
          maxDrainMs = Math.max(maxDrainMs, performance.now() - since);
          waiting = false;
          tick();
        });
      }
    }
    if (written >= total) finish();
  };
  const timer = setInterval(tick, SLICE_MS);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [path, rate, seconds] = process.argv.slice(2);
  process.on('disconnect', () => process.exit(0)); // the bench went away: do not linger
  process.once('message', (m) => {
    if (m?.type === 'go') write(path, rate === 'max' ? 'max' : Number(rate), Number(seconds));
  });
  process.send({ type: 'ready' });
}
