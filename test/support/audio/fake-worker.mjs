// A scripted stand-in for the audio capture process (same IPC protocol as
// src-main/core/audio/capture-worker.ts), so the supervisor and recorder can be tested without a
// sound server — including the native abort (process.abort() raises a real SIGABRT).
// The script comes as JSON in the FAKE_AUDIO environment variable:
//   devices          list answer (default: default + one fake mic)
//   deviceSequence   successive list answers (the last one repeats)
//   startError       { code, message } answer to start
//   abortOnStart     abort while "opening the device"
//   abortAfterMs     abort this long after start
//   faultAfterMs     report the device as disconnected this long after start
//   freq, amp        the tone delivered (default 440 Hz, 0.5)
//   batchMs          batch period (default 20)
//   liveAfterMs      when audio becomes "live" (default 30)
//   holdListsMs      list answers wait until this long after the process started, then go out
//                    together (a busy machine: several answers arrive in one read)
const script = JSON.parse(process.env.FAKE_AUDIO ?? '{}');
const DEFAULT_DEVICES = [
  { id: 'default', name: 'System default input', default: true },
  { id: 'fake-1', name: 'Fake microphone', default: false },
];
let lists = 0;
const BORN = Date.now();
const held = [];
let session = null;

function send(m, then) {
  process.send(m, undefined, {}, then);
}

function list() {
  const seq = script.deviceSequence;
  if (seq) return seq[Math.min(lists++, seq.length - 1)];
  return script.devices ?? DEFAULT_DEVICES;
}

function start(req) {
  if (script.startError) throw script.startError;
  if (script.abortOnStart) process.abort();
  const devices = list();
  const device = devices.find((d) => d.id === req.deviceId);
  if (!device) throw { code: 'NotFound', message: `no device ${req.deviceId}` };
  const rate = req.sampleRate;
  const t0 = Date.now();
  const w = (2 * Math.PI * (script.freq ?? 440)) / rate;
  const amp = script.amp ?? 0.5;
  let produced = 0;
  let seq = 0;
  const emit = (upTo) => {
    const n = upTo - produced;
    if (n <= 0) return;
    const pcm = new Int16Array(n);
    for (let i = 0; i < n; i++) pcm[i] = Math.round(amp * 32767 * Math.sin(w * (produced + i)));
    produced = upTo;
    send({ t: 'pcm', seq: seq++, pcm, clipped: 0 });
  };
  const timer = setInterval(() => emit(Math.floor(((Date.now() - t0) * rate) / 1000)), script.batchMs ?? 20);
  const timers = [timer];
  timers.push(setTimeout(() => send({ t: 'live', warmupMs: script.liveAfterMs ?? 30 }), script.liveAfterMs ?? 30));
  if (script.abortAfterMs !== undefined) timers.push(setTimeout(() => process.abort(), script.abortAfterMs));
  if (script.faultAfterMs !== undefined) {
    timers.push(setTimeout(() => {
      for (const t of timers) clearTimeout(t);
      clearInterval(timer);
      send({ t: 'fault', error: { code: 'Disconnected', message: `The microphone "${device.name}" was disconnected.`, details: { disconnected: true } } }, () => process.exit(0));
    }, script.faultAfterMs));
  }
  session = { timers, emit, t0, rate, get frames() { return produced; } };
  return { device, deviceRate: req.deviceRate, sampleRate: rate };
}

process.on('message', (m) => {
  try {
    if (m.t === 'list') {
      const answer = { t: 'result', id: m.id, ok: true, value: list() };
      const wait = (script.holdListsMs ?? 0) - (Date.now() - BORN);
      if (wait <= 0 && held.length === 0) return send(answer);
      held.push(answer);
      if (held.length === 1) setTimeout(() => held.splice(0).forEach((a) => send(a)), Math.max(0, wait));
      return;
    }
    if (m.t === 'start') return send({ t: 'result', id: m.id, ok: true, value: start(m.req) });
    if (m.t === 'stop') {
      const s = session;
      if (s) {
        for (const t of s.timers) clearTimeout(t);
        s.emit(Math.floor(((Date.now() - s.t0) * s.rate) / 1000));
      }
      return send({ t: 'result', id: m.id, ok: true, value: { frames: s ? s.frames : 0, paddingFrames: 0 } }, () => process.exit(0));
    }
  } catch (err) {
    send({ t: 'result', id: m.id, ok: false, error: { code: err.code ?? 'Internal', message: err.message ?? String(err) } });
  }
});
process.on('disconnect', () => process.exit(0));
send({ t: 'ready', pid: process.pid });
