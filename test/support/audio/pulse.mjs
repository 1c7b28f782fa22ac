// A private PulseAudio server with a null sink whose monitor is the default source: a
// microphone that node-web-audio-api opens like a real one (through ALSA's pulse plugin), and
// that a test feeds with pacat. Same set-up as test/run.sh.
import { spawn, execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { toneSamples } from './signal.mjs';

const run = promisify(execFile);

/** Starts pulseaudio; resolves once `pactl info` answers. */
export async function startPulse({ sink = 'testmic', rate = 48000 } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'capture-desk-pulse-'));
  const runtime = join(dir, 'runtime');
  await mkdir(runtime, { mode: 0o700 });
  const socket = join(dir, 'native');
  await writeFile(
    join(dir, 'test.pa'),
    `load-module module-native-protocol-unix auth-anonymous=1 socket=${socket}\n` +
      `load-module module-null-sink sink_name=${sink} rate=${rate}\n` +
      `set-default-sink ${sink}\nset-default-source ${sink}.monitor\n`,
  );
  const env = { ...process.env, XDG_RUNTIME_DIR: runtime, PULSE_SERVER: `unix:${socket}` };
  // Off the session bus: the suite's own PulseAudio (test/env.sh) already holds the bus name
  // org.PulseAudio1 there, and a second server that cannot take it exits at once.
  const serverEnv = { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}` };
  const child = spawn('pulseaudio', ['-n', '-F', join(dir, 'test.pa'), '--daemonize=no', '--exit-idle-time=-1', `--log-target=file:${join(dir, 'pa.log')}`], {
    env: serverEnv, stdio: 'ignore',
  });
  let exitCode = null;
  const exited = new Promise((r) => child.once('exit', (code, signal) => r((exitCode = code ?? signal))));
  // A loaded machine can take seconds to start it: wait up to 20 s, but stop at once if it died.
  let ok = false;
  for (let i = 0; i < 200 && !ok && exitCode === null; i++) {
    ok = await run('pactl', ['info'], { env }).then(() => true, () => false);
    if (!ok) await new Promise((r) => setTimeout(r, 100));
  }
  if (!ok) {
    child.kill('SIGKILL');
    const log = await readFile(join(dir, 'pa.log'), 'utf8').catch(() => '(no log)');
    throw new Error(`PulseAudio did not start (${exitCode === null ? 'no answer in 20 s' : `exited with ${exitCode}`}); its log:\n${log.slice(-2000)}`);
  }
  return {
    env: { PULSE_SERVER: env.PULSE_SERVER, XDG_RUNTIME_DIR: runtime },
    sink,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Plays a continuous sum of sines into `sink` with pacat (48 kHz, mono, 16-bit) until stop().
 * pacat's latency decides how the null sink renders: pacat's default (2 s) makes its monitor
 * deliver in bursts of hundreds of ms, unlike a microphone; 50 ms is smooth but under-runs when
 * the machine is busy (the sink then plays silence); 150 ms is smooth enough and robust.
 *
 * By default the tone is written as fast as pacat takes it: the pipe and the streams between
 * hold about a second, which rides out a stalled test process. `leadMs` paces it instead, from
 * the moment pacat's stream exists, `leadMs` ahead of what has played: a tone changed with
 * setTones() is then heard about `leadMs` later, not after whatever the pipe held (on a busy
 * machine, more than a 4 s take's second half).
 */
export function playTone({ env, sink, tones, rate = 48000, latencyMs = 150, leadMs, alternate }) {
  let playing = tones;
  // `alternate: { tones, everyMs }`: the two sets take turns every `everyMs` of the stream's own
  // samples (a multiple of 100 ms), so any stretch of the sound holds both whatever its start.
  const every = alternate ? Math.round((rate * alternate.everyMs) / 1000) : 0;
  // -v: pacat reports "Stream underrun." when it could not keep the sink fed (a glitch of the
  // test rig, not of the capture); they are counted so a benchmark can tell the two apart.
  const pacat = spawn('pacat', ['-v', '--playback', '--raw', '--format=s16le', `--rate=${rate}`, '--channels=1', `--latency-msec=${latencyMs}`, '-d', sink], {
    env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  let underruns = 0;
  /** When pacat's stream was created (paced playing counts from there), performance.now(). */
  let streamAt = null;
  pacat.stderr.setEncoding('utf8');
  pacat.stderr.on('data', (d) => {
    underruns += d.split('underrun').length - 1;
    if (streamAt === null && /Stream successfully created/.test(d)) streamAt = performance.now();
    stderr = (stderr + d.replace(/Time: [^\r\n]*[\r\n]*/g, '')).slice(-2000);
  });
  pacat.stdin.on('error', () => undefined); // EPIPE when pacat is stopped
  let frame = 0;
  let stopped = false;
  const samples = (count) => {
    const now = every && Math.floor(frame / every) % 2 === 1 ? alternate.tones : playing;
    const f = toneSamples(now, rate, count, frame);
    frame += count;
    const b = Buffer.alloc(count * 2);
    for (let i = 0; i < count; i++) b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(f[i] * 32767))), 2 * i);
    return b;
  };
  let source = null;
  let pacer = null;
  if (leadMs === undefined) {
    const chunk = rate / 10;
    source = new Readable({
      read() {
        if (stopped) return void this.push(null);
        this.push(samples(chunk));
      },
    });
    source.pipe(pacat.stdin);
  } else {
    const lead = Math.round((rate * leadMs) / 1000);
    const started = performance.now();
    pacer = setInterval(() => {
      // Not told within 2 s (another pacat's wording): counted from then.
      if (streamAt === null && performance.now() - started > 2000) streamAt = performance.now();
      const due = lead + (streamAt === null ? 0 : Math.floor(((performance.now() - streamAt) * rate) / 1000));
      if (due > frame) pacat.stdin.write(samples(due - frame));
    }, 10);
  }
  const exited = new Promise((r) => pacat.once('exit', r));
  return {
    get stderr() {
      return stderr;
    },
    get underruns() {
      return underruns;
    },
    /**
     * Plays other tones from the next chunk on, in the same stream (starting another pacat takes
     * as long as a busy machine makes it). Heard about `leadMs` later when paced, else up to
     * about a second later (what the pipe holds).
     */
    setTones(next) {
      playing = next;
    },
    async stop() {
      stopped = true;
      if (pacer) clearInterval(pacer);
      source?.unpipe();
      pacat.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    },
  };
}

/** The PulseAudio started by test/run.sh, or an error telling how to get one. */
export function testPulseFromEnv() {
  const server = process.env.PULSE_SERVER;
  const sink = process.env.CAPTURE_DESK_TEST_SINK;
  if (!server || !sink) {
    throw new Error('These audio tests need the PulseAudio test microphone that test/run.sh starts (PULSE_SERVER and CAPTURE_DESK_TEST_SINK are not set): run through npm test.');
  }
  return { env: { PULSE_SERVER: server }, sink };
}

/**
 * A null sink of its own on a shared server, so test files running in parallel do not hear each
 * other's tones. The capture process is pointed at its monitor with PULSE_SOURCE (libpulse's
 * default source for that client), which is what the system default input then is.
 */
export async function privateSink(serverEnv, name = `cd_${process.pid}_${Math.random().toString(36).slice(2, 8)}`) {
  const env = { ...process.env, ...serverEnv };
  const { stdout } = await run('pactl', ['load-module', 'module-null-sink', `sink_name=${name}`, 'rate=48000'], { env });
  const module = stdout.trim();
  return {
    sink: name,
    env: { ...serverEnv, PULSE_SOURCE: `${name}.monitor` },
    async unload() {
      await run('pactl', ['unload-module', module], { env }).catch(() => undefined);
    },
  };
}

/**
 * A microphone of the test's own that hears a steady tone of `freq` Hz: a private sink with the
 * tone playing into it. Returns the environment that points a capture process at it; what to
 * undo afterwards goes to `cleanups` (the tone first, then the sink).
 */
export async function toneMicrophone(serverEnv, freq, cleanups) {
  const priv = await privateSink(serverEnv);
  cleanups.push(() => priv.unload());
  const tone = playTone({ env: priv.env, sink: priv.sink, tones: [{ freq, amp: 0.5 }] });
  cleanups.push(() => tone.stop());
  return priv.env;
}
