// Helper of the "model" bench section (nothing happens on import): a 3-axis "print values over
// serial" board for the latency figure, writing one line per period into one end of a PTY pair and
// noting when each line went out (Date.now() right after the synchronous write returned: the line
// is in the PTY from then on). Run as a child process (writing into a PTY from the process that
// reads the other end deadlocks).
//
//   node model-board.mjs PATH RATE_HZ      (forked with IPC)
//
// Lines are `<x>,<y>,<z>\r\n` with x alternating in sign and changing amplitude every 2 s (the
// gesture test model hears "idle" and "wave" in turn), y and z a slow wobble.
// IPC: {type:'pause'} stops after the line in hand and answers {type:'paused', next} (the index of
// the next line); {type:'resume'} carries on from there, paced from the resume;
// {type:'times', from} answers {type:'times', from, times: [Date.now() of line from, from+1, …]}.
// Sends {type:'ready'} once the PTY is open.
import { openSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Line i's first value: ±0.5 for 2 s ("idle" to the gesture test model), then ±4 for 2 s ("wave"). */
export function firstValue(i, rate) {
  const amp = Math.floor(i / (2 * rate)) % 2 ? 4 : 0.5;
  return i % 2 ? -amp : amp;
}

function line(i, rate) {
  const x = firstValue(i, rate).toFixed(3);
  const y = Math.sin(i / 10).toFixed(3);
  const z = (9.81 + Math.cos(i / 13) * 0.05).toFixed(3);
  return `${x},${y},${z}\r\n`;
}

function board(path, rate) {
  const fd = openSync(path, 'w');
  const periodMs = 1000 / rate;
  const times = []; // Date.now() after line i was written
  let next = 0;
  let t0 = performance.now();
  let base = 0; // line index at t0
  let timer = null;
  let paused = false;
  const tick = () => {
    timer = null;
    if (paused) return;
    const due = base + Math.floor((performance.now() - t0) / periodMs) + 1;
    while (next < due) {
      writeSync(fd, line(next, rate));
      times[next] = Date.now();
      next++;
    }
    // Wake up at the next line's due time (setTimeout is late by ~1 ms, never early by a line).
    timer = setTimeout(tick, Math.max(0, t0 + (next - base) * periodMs - performance.now()));
  };
  process.on('message', (m) => {
    if (m?.type === 'pause') {
      paused = true;
      if (timer) clearTimeout(timer);
      timer = null;
      process.send({ type: 'paused', next });
    } else if (m?.type === 'resume') {
      paused = false;
      t0 = performance.now();
      base = next;
      tick();
    } else if (m?.type === 'times') {
      process.send({ type: 'times', from: m.from, times: times.slice(m.from) });
    }
  });
  process.send({ type: 'ready' });
  tick();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on('disconnect', () => process.exit(0));
  board(process.argv[2], Number(process.argv[3]));
}
