// Helper of the "serial" bench section (no `run` export, nothing happens on import): finds the
// highest rate of 3-axis lines the core holds (PTY → `capture-desk serve` → a WebSocket client that
// checks every line, as the browser's live view is attached), and says what stopped it.
//
// Short probes climb a ladder of rates until one is not held, two bisections narrow the edge, then
// the best rate is held for the full hold (30 s by default) and so is one step above it. A run is
// held when every line arrived with its own values, no batch was dropped, the writer was never
// held back (it finished on time and the client got ≥ 98 % of the offered rate) and serve stayed
// below 95 % of one core. A run that is not held is given a reason from its own figures: lines
// lost, the core saturated, the writer or socat saturated, every core of the machine busy, or the
// PTY pushing back while nothing was saturated.
import { availableParallelism } from 'node:os';
import { measureStream } from './serial-stream.mjs';

export const LADDER = [100_000, 150_000, 200_000, 250_000, 300_000, 400_000, 500_000, 600_000, 800_000, 1_000_000, 1_250_000, 1_600_000, 2_000_000];
const SATURATED = 95; // % of one core: serve at this or above is saturated
const BUSY = 90; // % of one core: a helper process at this or above is the likely limit
const CORES = availableParallelism();

const n = (v) => Math.round(v).toLocaleString('en-US');
const pct = (v) => `${Math.round(v)}%`;
/** Where the machine's CPU went during a run, in % of one core. */
export const cpuText = (c) =>
  `serve ${pct(c.serve)}, writer ${pct(c.writer)}, socat ${pct(c.socat)}, this client ${pct(c.bench)}, kernel threads ${c.kernel === null ? 'not visible' : pct(c.kernel)}, other programs and interrupts ${pct(c.others)}; machine ${pct(c.machine)} of ${CORES * 100}%`;

/** Whether a run held its rate, and if not, why (from its own figures). */
export function judge(s, rate, seconds) {
  const lost = s.missing.n + s.wrongRows + s.duplicates;
  const lateMs = s.writer.ms - seconds * 1000;
  const onTime = lateMs <= seconds * 1000 * 0.02 + 150;
  const keptUp = s.rowsPerSecond >= rate * 0.98;
  const c = s.cpu;
  const why = [];
  let limit = null; // the first reason, as a short label
  const because = (label, text) => (why.push(text), (limit ??= label));
  if (s.seqGaps > 0) because('batches dropped', `the server dropped ${n(s.seqGaps)} batches to the WebSocket client`);
  if (lost > 0) because('lines lost', `${n(lost)} lines lost or wrong`);
  if (c.serve >= SATURATED) because('the core', `the core saturated (serve at ${pct(c.serve)} of a core)`);
  if (!onTime || !keptUp) {
    const pushedBack = `the PTY pushed back (the client got ${n(s.rowsPerSecond)} lines/s; the writer finished ${(lateMs / 1000).toFixed(1)} s late)`;
    const busy = [['the core', c.serve], ['the writer', c.writer], ['socat', c.socat]].filter(([, v]) => v >= BUSY);
    if (busy.length) because(busy[0][0], `${pushedBack}: ${busy.map(([k, v]) => `${k} at ${pct(v)}`).join(', ')} of a core`);
    else if (c.machine >= CORES * 100 * 0.9) because('the machine', `${pushedBack} with every core of the machine busy, no process saturated (${cpuText(c)})`);
    else because('the PTY', `${pushedBack} with no process saturated and cores to spare (${cpuText(c)})`);
  }
  return { held: why.length === 0, why: why.join('; '), limit, lost, lateMs, keptUp };
}

/** One line about a run, for the log and the details. */
export function describe(run) {
  const { rate, seconds, s, verdict } = run;
  const c = s.cpu;
  const cpu = verdict.held || !/no process saturated/.test(verdict.why) ? `; CPU ${cpuText(c)}` : '';
  return `${n(rate)} offered for ${seconds} s → ${n(s.rowsPerSecond)} lines/s, ${n(verdict.lost)} lost, ${s.seqGaps} batches dropped${cpu}; load ${s.load.start.toFixed(2)}→${s.load.end.toFixed(2)}: ${verdict.held ? 'held' : `NOT held: ${verdict.why}`}`;
}

/**
 * The ramp. `say` logs progress. Returns every run (probes and holds), the best hold (`ceiling`,
 * null if not even the lowest rate was held), the hold one step above it (`above`) and the rate
 * ladder's first unheld probe's reason.
 */
export async function findCeiling({ cli, probeSeconds, holdSeconds, cpuProfDir, say, ladder = LADDER }) {
  const runs = [];
  const go = async (rate, seconds, kind, prof) => {
    const s = await measureStream({ cli, rate, seconds, cpuProfDir: prof });
    const run = { kind, rate, seconds, s, verdict: judge(s, rate, seconds) };
    runs.push(run);
    say(`${kind}: ${describe(run)}`);
    return run;
  };

  // 1. Climb until a probe is not held.
  let low = null; // highest rate a probe held
  let high = null; // lowest rate a probe did not hold
  for (const rate of ladder) {
    const r = await go(rate, probeSeconds, 'probe');
    if (!r.verdict.held) {
      high = rate;
      break;
    }
    low = rate;
  }
  // 2. Narrow the edge: two bisections, on round numbers.
  for (let i = 0; i < 2 && low !== null && high !== null && high / low > 1.08; i++) {
    const mid = Math.round((low + high) / 2 / 10_000) * 10_000;
    if (mid <= low || mid >= high) break;
    const r = await go(mid, probeSeconds, 'probe');
    if (r.verdict.held) low = mid;
    else high = mid;
  }
  if (low === null) return { runs, ceiling: null, above: null };

  // 3. Hold the best rate; a hold that fails steps down by 10 % (twice at most).
  let ceiling = null;
  for (let rate = low, tries = 0; tries < 3; tries++, rate = Math.round((rate * 0.9) / 10_000) * 10_000) {
    const r = await go(rate, holdSeconds, 'hold', cpuProfDir);
    if (r.verdict.held) {
      ceiling = r;
      break;
    }
    high = Math.min(high ?? rate, rate);
  }
  // 4. One step above: the lowest rate not held, or 10 % more if no probe failed. A step above
  // that holds after all (a probe's verdict was noise) becomes the ceiling, and the next step is
  // held in turn, twice at most.
  let above = null;
  for (let extra = 0; ceiling && extra < 3; extra++) {
    const up = Math.round((ceiling.rate * 1.1) / 10_000) * 10_000;
    const rate = high !== null && high > ceiling.rate ? high : up;
    above = runs.find((r) => r.kind !== 'probe' && r.rate === rate) ?? (await go(rate, holdSeconds, 'hold above'));
    if (!above?.verdict.held) break;
    [ceiling, above, high] = [above, null, null];
  }
  return { runs, ceiling, above };
}
