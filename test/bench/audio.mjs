// Benchmark section "audio": long capture from a virtual microphone through the real stack
// (AudioSupervisor → capture process with node-web-audio-api → AudioRecording → WAV on disk),
// with the live view's level reports sent as the app sends them (Microphones → event bus →
// encoded WebSocket frames), so the core's CPU and memory include the UI's share.
//
//   CAPTURE_DESK_BENCH_AUDIO_SECONDS   capture length (default 600 = 10 minutes)
//
// A 997 Hz tone is played into a PulseAudio null sink (the server test/run.sh started when
// PULSE_SERVER is set, else one started here) and recorded at 16 kHz. Figures:
//   - rate: frames delivered per second of wall time (least squares after 10 s) vs 16000 ± 0.1%
//   - continuity: places where the recorded tone breaks (a dropped, repeated or made-up frame)
//   - memory: RSS growth of the core process and the capture process after the first minute
//   - level reports per second sent to the UI (≤ 60) and their bytes
//   - CPU of both processes (for reference)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildCaptureWorker, bundleForNode } from '../support/audio/build-worker.mjs';
import { playTone, privateSink, startPulse } from '../support/audio/pulse.mjs';
import { captureBreaks, readWav } from '../support/audio/signal.mjs';

const RATE = 16_000;
const TONE = 997; // not a divisor of any buffer size: a lost block always shows as a phase jump
const MB = 1024 * 1024;
const CLK_TCK = 100; // Linux USER_HZ

async function procStat(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    return { cpuSeconds: (Number(f[11]) + Number(f[12])) / CLK_TCK, rss };
  } catch {
    return null;
  }
}

export async function run() {
  const seconds = Number(process.env.CAPTURE_DESK_BENCH_AUDIO_SECONDS ?? 600);
  const ownPulse = process.env.PULSE_SERVER ? null : await startPulse({ sink: 'benchmic' });
  const sink = ownPulse ? { sink: ownPulse.sink, env: ownPulse.env, unload: async () => {} } : await privateSink({ PULSE_SERVER: process.env.PULSE_SERVER });
  const dist = fileURLToPath(new URL('../../dist/audio/capture-worker.js', import.meta.url));
  const worker = existsSync(dist) ? dist : await buildCaptureWorker();
  const driver = await bundleForNode('test/support/audio/capture-driver.ts');
  const dir = await mkdtemp(join(tmpdir(), 'bench-audio-'));
  const tone = playTone({ env: sink.env, sink: sink.sink, tones: [{ freq: TONE, amp: 0.5 }], latencyMs: Number(process.env.BENCH_PACAT_MS ?? 150) });
  const samples = []; // { t, sup: {cpuSeconds, rss}, worker }
  let started = null;
  let done = null;
  let stderr = '';
  let underruns = 0;
  const heaps = []; // live JS heap of the core process after a full GC, every 10 s
  let lastProgress = null;
  try {
    const child = spawn(process.execPath, ['--expose-gc', driver], {
      env: { ...process.env, ...sink.env, BENCH_SECONDS: String(seconds), BENCH_RATE: String(RATE), BENCH_DIR: join(dir, 'data'), BENCH_WORKER: worker },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
    const exited = new Promise((r) => child.once('exit', r));
    let timer = null;
    const sample = async () => {
      if (!started) return;
      const [s, w] = await Promise.all([procStat(started.supervisorPid), procStat(started.workerPid)]);
      if (s) samples.push({ t: performance.now() / 1000, sup: s, worker: w }); // the worker is gone at the end
    };
    for await (const line of createInterface({ input: child.stdout })) {
      const m = JSON.parse(line);
      if (m.t === 'started') {
        started = m;
        await sample();
        timer = setInterval(() => void sample(), 10_000);
        process.stderr.write(`bench audio: capturing ${seconds} s at ${RATE} Hz (device ${m.deviceRate} Hz)…\n`);
      } else if (m.t === 'progress') {
        heaps.push({ t: m.elapsedMs / 1000, heap: m.heapUsed });
        lastProgress = m;
        if (m.elapsedMs % 60_000 < 10_000) process.stderr.write(`bench audio: ${Math.round(m.elapsedMs / 1000)} s, ${m.frames} frames\n`);
      } else if (m.t === 'done') {
        done = m;
        await sample(); // the worker may already be gone; the supervisor is not
      }
    }
    if (timer) clearInterval(timer);
    const code = await exited;
    if (!done) throw new Error(`the capture driver exited (${code}) without finishing:\n${stderr}`);
  } finally {
    underruns = tone.underruns;
    await tone.stop();
    await sink.unload();
    await ownPulse?.stop();
  }

  const wav = await readWav(done.file);
  const breaks = captureBreaks(wav.samples, TONE, RATE, { skip: RATE, playerUnderruns: underruns }); // from 1 s on
  if (breaks.jumps + breaks.gaps === 0) await rm(dir, { recursive: true, force: true }); // else keep it to look at
  const elapsedS = done.elapsedMs / 1000;
  const rateDev = done.measuredRate === null ? null : (Math.abs(done.measuredRate - RATE) / RATE) * 100;
  const countDev = (Math.abs(wav.frames - RATE * seconds) / (RATE * seconds)) * 100;
  const first = samples[0];
  const last = samples.at(-1);
  // A reading taken as the capture process exits has no memory left to report: not a sample of it.
  const withWorker = samples.filter((s) => s.worker && s.worker.rss > 0);
  const wFirst = withWorker[0];
  const wLast = withWorker.at(-1);
  const baselineAt = first.t + Math.min(60, seconds / 3);
  const growth = (list, pick) => {
    const after = list.filter((s) => s.t >= baselineAt);
    return after.length < 2 ? 0 : (Math.max(...after.map(pick)) - pick(after[0])) / MB;
  };
  const cpu = (a, b, pick) => (b.t > a.t ? ((pick(b) - pick(a)) / (b.t - a.t)) * 100 : 0);
  const supGrowth = growth(samples, (s) => s.sup.rss);
  const heapAfter = heaps.filter((h) => h.t >= Math.min(60, seconds / 3));
  const heapGrowth = heapAfter.length < 2 ? 0 : (heapAfter.at(-1).heap - heapAfter[0].heap) / MB;
  const workerGrowth = growth(withWorker, (s) => s.worker.rss);
  return [
    {
      name: `audio: frames per second over ${seconds} s (16 kHz)`, value: done.measuredRate ?? 0, unit: 'Hz', target: '16000 ± 0.1%', pass: rateDev !== null && rateDev <= 0.1,
      detail: `${wav.frames} frames in ${elapsedS.toFixed(1)} s of recording (${countDev.toFixed(3)}% from rate × ${seconds} s, start/stop latency included); rate deviation ${rateDev?.toFixed(4)}%`,
    },
    {
      name: 'audio: dropped or duplicated frames (breaks in the recorded tone)', value: breaks.blamed, unit: 'events', target: '0', pass: breaks.blamed === 0,
      detail:
        `${breaks.jumps} phase jumps (frames lost or repeated), ${breaks.gaps} silent gaps` +
        (underruns ? ` — the tone player (pacat) under-ran ${underruns} times, so gaps are the source's, not counted` : '') +
        (breaks.events.length ? `; at frames ${breaks.events.map((e) => `${e.at} (${e.kind})`).join(', ')}; recording kept: ${done.file}` : `; largest residual ${breaks.maxResidual.toFixed(1)} LSB`),
    },
    {
      name: 'audio: core process RSS growth after the first minute', value: supGrowth, unit: 'MB', target: '< 20 MB', pass: supGrowth < 20,
      detail: `RSS ${(first.sup.rss / MB).toFixed(1)} → ${(last.sup.rss / MB).toFixed(1)} MB, sampled every 10 s (${samples.length} samples); live JS heap after GC ${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(2)} MB over the same time`,
    },
    {
      name: 'audio: capture process RSS growth after the first minute', value: workerGrowth, unit: 'MB', target: '< 20 MB', pass: workerGrowth < 20,
      detail: `RSS ${(wFirst.worker.rss / MB).toFixed(1)} → ${(wLast.worker.rss / MB).toFixed(1)} MB`,
    },
    {
      name: 'audio: silence the engine made up (removed)', value: done.paddingMs ?? 0, unit: 'ms', target: 'reference', pass: null,
      detail: 'node-web-audio-api pads with 128-frame blocks of zeros when the device is late; they are removed, not recorded',
    },
    {
      name: 'audio: level reports sent to the UI', value: lastProgress ? lastProgress.levels / (lastProgress.elapsedMs / 1000) : 0, unit: 'per s', target: '≤ 60',
      pass: lastProgress !== null && lastProgress.levels / (lastProgress.elapsedMs / 1000) <= 60,
      detail: lastProgress ? `${lastProgress.levels} reports, ${(lastProgress.levelBytes / 1024 / (lastProgress.elapsedMs / 1000)).toFixed(1)} KiB/s encoded for the WebSocket (raw 16-bit PCM would be ${(RATE * 2 / 1024).toFixed(1)} KiB/s)` : 'no progress report (capture shorter than 10 s)',
    },
    { name: 'audio: CPU of the core process (supervisor + recorder + level reports)', value: cpu(first, last, (s) => s.sup.cpuSeconds), unit: '% of one core', target: 'reference', pass: null },
    { name: 'audio: CPU of the capture process (engine + resampler)', value: cpu(wFirst, wLast, (s) => s.worker.cpuSeconds), unit: '% of one core', target: 'reference', pass: null },
  ];
}
