// Helper of the "model" bench section (nothing happens on import): `capture-desk model test` on
// many keyword-length samples (issue 44, part 4), against the export run bare in one thread on the
// same windows.
//
//   1. a data folder with the export added by `model add`, and N one-channel WAVs at the model's
//      rate, `seconds` long each (a tone whose pitch and level vary, with noise), imported by
//      `samples import` with the model's first two labels;
//   2. `capture-desk model test --model M --json --workers W`: its wall time from spawn to exit
//      (process start, the store, the workers' start, decoding, windowing, the hand-over, keeping
//      each result: all of it), the windows it says it classified, its RSS (/proc/PID/status
//      VmRSS read every 50 ms) at each quarter of the run;
//   3. once more as the first (everything reused: no window classified), then with --workers 1
//      (another threshold, so nothing is reused);
//   4. bare, before step 2 and after step 3 (the faster kept): every whole window at k × stride of
//      the same samples (int16 values written into the heap as floats) classified by run_classifier
//      in one worker thread (model-bare-worker.mjs), the loop's wall time;
//   5. the bare program (model-bare-program.mjs), timed from spawn to exit as the command is: the
//      export alone reading the same WAV files and classifying the same windows, nothing of the app
//      around it; in one thread (the command's like-for-like bare), and in as many worker threads
//      as the command has workers (the floor: what any program doing this reaches on this machine).
//      Each before step 2 and after step 3, the faster kept.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monoWav } from '../support/audio/wav-bytes.mjs';
import { prng } from '../support/seeded-random.mjs';
import { bareWorker } from './model-inproc.mjs';

function run(cli, args, { sampleRss = false } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const rss = [];
    const timer = sampleRss
      ? setInterval(() => {
        try {
          const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) rss.push({ at: performance.now() - t0, kb: Number(m[1]) });
        } catch { /* it ended */ }
      }, 50)
      : null;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearInterval(timer);
      const wallMs = performance.now() - t0;
      if (code !== 0) reject(new Error(`capture-desk ${args.slice(0, 2).join(' ')} exited ${code}: ${stderr.trim().slice(-500)}`));
      else resolve({ stdout, stderr, wallMs, rss });
    });
  });
}

const bareAll = (js, pcm, o) => bareWorker({ js, pcm, ...o });

const BARE_PROGRAM = fileURLToPath(new URL('./model-bare-program.mjs', import.meta.url));

/** model-bare-program.mjs from spawn to exit: { wallMs, windows, loopMs }. */
function bareProgram(js, list, threads, windowFloats, strideFrames) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BARE_PROGRAM, js, list, String(threads), String(windowFloats), String(strideFrames)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      const said = /^BARE (.*)$/m.exec(stderr);
      if (code !== 0 || !said) reject(new Error(`the bare program (${threads} threads) exited ${code}: ${stderr.trim().slice(-500)}`));
      else resolve({ wallMs, ...JSON.parse(said[1]) });
    });
  });
}

const faster = (a, b) => (a.wallMs <= b.wallMs ? a : b);

const windowsSaid = (stderr, model) => {
  const m = new RegExp(`Model "${model}": classified (\\d+) samples? \\((\\d+) windows\\) in (\\d+) workers?; (\\d+) kept`).exec(stderr);
  if (!m) throw new Error(`model test did not say what it classified: ${stderr.trim().slice(-300)}`);
  return { samples: Number(m[1]), windows: Number(m[2]), workers: Number(m[3]), reused: Number(m[4]) };
};

/** RSS (MB) at the end of each quarter of the run. */
function quarters(rss, wallMs) {
  return [0.25, 0.5, 0.75, 1].map((q) => {
    const upTo = rss.filter((r) => r.at <= q * wallMs);
    return upTo.length ? upTo[upTo.length - 1].kb / 1024 : NaN;
  });
}

export async function modelTestThroughput({ cli, dir, exportDir, samples: count, seconds, workers, say }) {
  const data = join(dir, 'model-test-data');
  await run(cli, ['model', 'add', exportDir, '--name', 'kws', '--data-dir', data]);
  const info = JSON.parse((await run(cli, ['model', 'info', 'kws', '--json', '--data-dir', data])).stdout);
  const d = { axes: info.axes, frequencyHz: info.frequency_hz, frameSampleCount: info.frame_sample_count, windowMs: info.window_ms, labels: info.labels };
  if (d.axes !== 1) throw new Error(`the model test bench wants a one-channel (microphone) model; this one takes ${d.axes} axes`);
  const rate = d.frequencyHz;
  const frames = Math.round(rate * seconds);
  const windowFloats = d.frameSampleCount;
  const strideFrames = Math.round((rate * d.windowMs) / 4 / 1000);
  const pcm = new Int16Array(frames * count);
  const wavs = join(dir, 'model-test-wavs');
  await mkdir(wavs, { recursive: true });
  const files = [[], []];
  for (let s = 0; s < count; s++) {
    const r = prng(1000 + s);
    const hz = 150 + r() * 2000;
    const level = 500 + r() * 8000;
    for (let i = 0; i < frames; i++) pcm[s * frames + i] = Math.max(-32768, Math.min(32767, Math.round(level * Math.sin((2 * Math.PI * hz * i) / rate) + (r() - 0.5) * 2000)));
    const f = join(wavs, `k${String(s).padStart(5, '0')}.wav`);
    await writeFile(f, monoWav(frames, rate, (i) => pcm[s * frames + i]));
    files[s % 2].push(f);
  }
  const labels = d.labels;
  for (const [k, list] of files.entries()) {
    if (list.length) await run(cli, ['samples', 'import', ...list, '--label', labels[k % labels.length], '--category', 'testing', '--data-dir', data]);
  }
  // Bare before and after the command, the faster one kept: on a shared machine the load moves, and
  // the goal must not be met by bare having had a bad moment.
  const js = join(data, 'models', 'kws', info.files.js.name);
  const bareOpts = { sampleFrames: frames, windowFloats, strideFrames };
  say('model test: bare run_classifier in one thread on the windows of the samples…');
  const bareBefore = await bareAll(js, pcm, bareOpts);
  const list = join(dir, 'model-test-wavs.txt');
  await writeFile(list, files.flat().sort().join('\n') + '\n');
  say(`model test: the bare program, in one thread and in ${workers}, from spawn to exit…`);
  const programs = async () => ({ one: await bareProgram(js, list, 1, windowFloats, strideFrames), many: await bareProgram(js, list, workers, windowFloats, strideFrames) });
  const programsBefore = await programs();
  say(`model test: ${count} samples of ${seconds} s at ${rate} Hz imported; running capture-desk model test with ${workers} workers…`);
  const base = ['model', 'test', '--model', 'kws', '--json', '--data-dir', data];
  const many = await run(cli, [...base, '--workers', String(workers)], { sampleRss: true });
  const manySaid = windowsSaid(many.stderr, 'kws');
  say(`… ${manySaid.windows} windows in ${(many.wallMs / 1000).toFixed(2)} s; now with 1 worker…`);
  // Again as the first: every result is reused. (Before the next run: another threshold replaces the kept results.)
  const again = await run(cli, [...base, '--workers', String(workers)]);
  const againSaid = windowsSaid(again.stderr, 'kws');
  const one = await run(cli, [...base, '--workers', '1', '--threshold', '0.61'], { sampleRss: true });
  const oneSaid = windowsSaid(one.stderr, 'kws');
  say('… bare run_classifier in one thread on the same windows again…');
  const bareAfter = await bareAll(js, pcm, bareOpts);
  const bare = bareBefore.wallMs <= bareAfter.wallMs ? bareBefore : bareAfter;
  const programsAfter = await programs();
  const program = (p) => ({ ...p, windowsPerSecond: p.windows / (p.wallMs / 1000) });
  const programOne = program(faster(programsBefore.one, programsAfter.one));
  const programMany = program(faster(programsBefore.many, programsAfter.many));
  for (const p of [programOne, programMany]) if (p.windows !== manySaid.windows) throw new Error(`the bare program classified ${p.windows} windows, the command ${manySaid.windows}: they must do the same work`);
  return {
    d, count, seconds,
    many: { ...manySaid, wallMs: many.wallMs, windowsPerSecond: manySaid.windows / (many.wallMs / 1000), rssMb: quarters(many.rss, many.wallMs), peakMb: Math.max(...many.rss.map((r) => r.kb)) / 1024 },
    one: { ...oneSaid, wallMs: one.wallMs, windowsPerSecond: oneSaid.windows / (one.wallMs / 1000), rssMb: quarters(one.rss, one.wallMs) },
    again: { ...againSaid, wallMs: again.wallMs },
    bare: { windows: bare.windows, wallMs: bare.wallMs, callMs: bare.callMs, windowsPerSecond: bare.windows / (bare.wallMs / 1000), beforeMs: bareBefore.wallMs, afterMs: bareAfter.wallMs },
    programOne, programMany,
  };
}
