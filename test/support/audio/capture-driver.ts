// The "core process" of the audio benchmark (bundled and run by test/bench/audio.mjs): an
// AudioSupervisor, the app's Microphones source (level reports ~30/s on the event bus, each
// encoded for the wire as the browser shell sends it) and one AudioRecording, exactly as the app
// runs them, recording until BENCH_SECONDS have passed. Prints JSON lines on stdout:
//   {"t":"started","supervisorPid","workerPid","deviceRate"}
//   {"t":"progress","elapsedMs","frames","heapUsed","levels","levelBytes"} every 10 s
//   {"t":"done","file","frames","elapsedMs","measuredRate","paddingMs","error"}
import { mkdir } from 'node:fs/promises';
import { AudioRecording } from '../../../src-main/core/audio/audio-recording.js';
import { AudioSupervisor } from '../../../src-main/core/audio/audio-supervisor.js';
import { Microphones } from '../../../src-main/core/audio/microphones.js';
import { EventBus } from '../../../src-main/core/event-bus.js';
import { stderrLogger } from '../../../src-main/core/log.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { wireCodec } from '../../../src-main/server/cbor.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 600);
const rate = Number(process.env.BENCH_RATE ?? 16_000);
const dir = process.env.BENCH_DIR!;
const out = (o: Record<string, unknown>) => process.stdout.write(JSON.stringify(o) + '\n');

await mkdir(dir, { recursive: true });
const log = stderrLogger({ bench: 'audio' });
const store = await SampleStore.open(dir, log);
const latency = process.env.BENCH_LATENCY ? Number(process.env.BENCH_LATENCY) : undefined;
const sup = new AudioSupervisor({ log, workerPath: process.env.BENCH_WORKER!, restartDelaysMs: false, ...(latency ? { latencySeconds: latency } : {}) });
// Levels go where the app sends them: the bus, then one encoded WebSocket frame per event.
const bus = new EventBus();
let levels = 0;
let levelBytes = 0;
bus.onAny((name, payload) => {
  levels++;
  levelBytes += wireCodec.encode({ t: 'event', name, payload }).length;
});
const mics = await Microphones.open({ input: sup, dataDir: dir, bus, log, stopSource: async () => {}, onDevicesChanged: () => {} });
await mics.refresh();
await mics.setSettings({ sampleRate: rate });
const noop = () => {};
const source = await mics.factory('audio:default', { signal: new AbortController().signal }, { info: noop, rows: noop, stats: noop, ended: noop, interrupted: noop, resumed: noop });
const status = sup.status;
await sup.whenLive(15_000);
await new Promise((r) => setTimeout(r, 500));
out({ t: 'started', supervisorPid: process.pid, workerPid: status.workerPid, deviceRate: status.deviceRate });

// Arrival time of every batch, reduced to a least-squares fit of frames against time (after a
// 10 s settling period): the slope is the rate the device really delivered.
let frames = 0;
const t0 = performance.now();
const fit = { n: 0, st: 0, sf: 0, stt: 0, stf: 0 };
sup.pcm.on((b) => {
  frames += b.pcm.length;
  const t = (performance.now() - t0) / 1000;
  if (t < 10) return;
  fit.n++;
  fit.st += t;
  fit.sf += frames;
  fit.stt += t * t;
  fit.stf += t * frames;
});
const rec = await AudioRecording.start(sup, store, { label: 'bench', category: 'training' });
// With --expose-gc the live heap after a full collection is given too: the plainest leak signal.
const gc = (globalThis as { gc?: () => void }).gc;
const progress = setInterval(() => {
  gc?.();
  out({ t: 'progress', elapsedMs: Math.round(performance.now() - t0), frames: rec.frames, heapUsed: process.memoryUsage().heapUsed, levels, levelBytes });
}, 10_000);
await new Promise((r) => setTimeout(r, seconds * 1000));
clearInterval(progress);
const { sample, error } = await rec.stop();
const elapsedMs = performance.now() - t0;
const { paddingFrames } = await sup.stop();
await source.stop();
await sup.close();
const slope = fit.n > 2 ? (fit.n * fit.stf - fit.st * fit.sf) / (fit.n * fit.stt - fit.st * fit.st) : null;
out({ t: 'done', file: `${dir}/${sample.file}`, frames: sample.extra.rows, elapsedMs, measuredRate: slope, paddingMs: (paddingFrames * 1000) / (status.deviceRate ?? 48_000), error: error?.message ?? null });
await store.close();
