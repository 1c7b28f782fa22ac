/**
 * The audio capture process (entry point; bundled to dist/audio/capture-worker.js). Started by
 * AudioSupervisor with child_process.fork; talks only through worker-protocol.ts messages.
 *
 * node-web-audio-api is loaded here and nowhere else: when it cannot open a device it aborts the
 * process, and this is the process that can afford it. Before every getUserMedia the device list
 * is read and the request refused (a typed error, no abort) when the device is not there.
 *
 * Pipeline per engine callback (1024 frames at the device rate, ~21 ms):
 *   mono downmix (in the graph) → drop engine padding → resample → Int16 → one IPC message.
 * The process exits after each capture session, which is the only way to be sure the device is
 * closed (node-web-audio-api's MediaStream has no stop()).
 */
import { setPriority } from 'node:os';
import { recordSelf } from './leftovers.js';
import { PARENT_PID_ENV, watchParent } from './parent-watch.js';
import { PaddingFilter } from './padding-filter.js';
import { floatToInt16 } from './pcm.js';
import { StreamResampler } from './resampler.js';
import {
  DEFAULT_DEVICE_ID, DEFAULT_ENTRY, type AudioDevice, type FromWorker, type StartRequest, type StartResult, type StopResult, type ToWorker, type WireFault,
} from './worker-protocol.js';

// The few parts of node-web-audio-api used here. Its own typings pull the DOM library into the
// whole program, so they are kept out of the type check on purpose.
interface RawDevice {
  deviceId: string;
  label: string;
  kind: string;
}
interface AudioProcessingEventLike {
  inputBuffer: { getChannelData(channel: number): Float32Array };
}
interface NodeLike {
  connect(to: unknown): void;
  disconnect(): void;
}
interface ScriptProcessorLike extends NodeLike {
  onaudioprocess: ((e: AudioProcessingEventLike) => void) | null;
  channelCountMode: string;
  channelInterpretation: string;
}
interface AudioContextLike {
  readonly sampleRate: number;
  readonly destination: unknown;
  createScriptProcessor(bufferSize: number, inputs: number, outputs: number): ScriptProcessorLike;
  close(): Promise<void>;
}
interface WebAudio {
  mediaDevices: {
    enumerateDevices(): Promise<RawDevice[]>;
    getUserMedia(c: { audio: Record<string, unknown> | boolean }): Promise<unknown>;
  };
  AudioContext: new (o: Record<string, unknown>) => AudioContextLike;
  MediaStreamAudioSourceNode: new (ctx: AudioContextLike, o: { mediaStream: unknown }) => NodeLike;
}

const ENGINE_BUFFER = 1024;
/** ALSA's "null" plugin lists as an input that records silence: never a microphone. */
const PLACEHOLDER = /^Discard all samples/i;

let waaPromise: Promise<WebAudio> | null = null;
function webAudio(): Promise<WebAudio> {
  const specifier = 'node-web-audio-api'; // a variable, so bundlers leave it to Node's resolver
  waaPromise ??= import(specifier) as Promise<WebAudio>;
  return waaPromise;
}

class Fault extends Error {
  constructor(readonly wire: WireFault) {
    super(wire.message);
  }
}

function send(msg: FromWorker, then?: () => void): void {
  process.send?.(msg, undefined, {}, then ? () => then() : undefined);
}

/** The session is over: leave once the last message is out, so the device is certainly released. */
function sendAndExit(msg: FromWorker): void {
  send(msg, () => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref(); // the core stopped listening
}

async function usableInputs(): Promise<RawDevice[]> {
  const all = await (await webAudio()).mediaDevices.enumerateDevices();
  return all.filter((d) => d.kind === 'audioinput' && !PLACEHOLDER.test(d.label));
}

async function listDevices(): Promise<AudioDevice[]> {
  const inputs = await usableInputs();
  const list: AudioDevice[] = inputs.map((d) => ({ id: d.deviceId, name: d.label, default: false }));
  // While we hold a device, some backends (raw ALSA) stop listing it: it is still there.
  const held = session?.device;
  if (held && held.id !== DEFAULT_DEVICE_ID && !list.some((d) => d.id === held.id)) list.push(held);
  return list.length ? [DEFAULT_ENTRY, ...list] : [];
}

interface Session {
  device: AudioDevice;
  ctx: AudioContextLike;
  source: NodeLike;
  processor: ScriptProcessorLike;
  padding: PaddingFilter;
  resampler: StreamResampler;
  seq: number;
  frames: number;
  startInputs: string[];
  lastCallback: number;
  timer: NodeJS.Timeout;
  ending: boolean;
}
let session: Session | null = null;

async function start(req: StartRequest): Promise<StartResult> {
  if (session) throw new Fault({ code: 'Busy', message: 'Audio capture is already running; stop it first.' });
  const inputs = await usableInputs();
  if (inputs.length === 0) {
    throw new Fault({
      code: 'Unavailable',
      message: 'No audio input device found. Plug in a microphone (and check that the sound server, e.g. PulseAudio or PipeWire, is running), then try again.',
      details: { reason: 'no-device' },
    });
  }
  let device = DEFAULT_ENTRY;
  if (req.deviceId !== DEFAULT_DEVICE_ID) {
    const d = inputs.find((i) => i.deviceId === req.deviceId);
    if (!d) {
      throw new Fault({
        code: 'NotFound',
        message: `The microphone with id ${req.deviceId} is not connected, or another application holds it exclusively. Plug it in or close that application, or pick another device.`,
        details: { disconnected: true, deviceId: req.deviceId },
      });
    }
    device = { id: d.deviceId, name: d.label, default: false };
  }

  const waa = await webAudio();
  // No output device needed; the graph runs at the device rate so the engine never resamples
  // (its internal resampling repeats or drops samples).
  const ctx = new waa.AudioContext({ sinkId: { type: 'none' }, sampleRate: req.deviceRate });
  let source: NodeLike;
  let processor: ScriptProcessorLike;
  try {
    const constraints: Record<string, unknown> = { sampleRate: req.deviceRate, latency: req.latencySeconds };
    if (device.id !== DEFAULT_DEVICE_ID) constraints.deviceId = device.id;
    const stream = await waa.mediaDevices.getUserMedia({ audio: constraints }); // a failure here aborts the process
    source = new waa.MediaStreamAudioSourceNode(ctx, { mediaStream: stream });
    processor = ctx.createScriptProcessor(ENGINE_BUFFER, 1, 1);
    processor.channelCountMode = 'explicit';
    processor.channelInterpretation = 'speakers'; // stereo devices: (L + R) / 2
  } catch (err) {
    await ctx.close().catch(() => undefined);
    throw err;
  }

  const s: Session = {
    device, ctx, source, processor,
    padding: new PaddingFilter({ maxRunFrames: req.deviceRate, warmupFrames: 3 * req.deviceRate }),
    resampler: new StreamResampler(ctx.sampleRate, req.sampleRate),
    seq: 0, frames: 0, startInputs: inputs.map((i) => i.deviceId), lastCallback: Date.now(),
    timer: setInterval(() => void watchdog(s, req), req.presencePollMs), ending: false,
  };
  session = s;
  const t0 = Date.now();
  let live = false;
  processor.onaudioprocess = (e) => {
    s.lastCallback = Date.now();
    const kept = s.padding.process(e.inputBuffer.getChannelData(0));
    if (!live && s.padding.live) {
      live = true;
      send({ t: 'live', warmupMs: Date.now() - t0 });
    }
    if (kept.length) emit(s, s.resampler.process(kept));
  };
  source.connect(processor);
  processor.connect(ctx.destination);
  if (ctx.sampleRate !== req.deviceRate) {
    send({ t: 'log', level: 'warn', msg: 'audio graph runs at another rate than asked', fields: { asked: req.deviceRate, got: ctx.sampleRate } });
  }
  return { device, deviceRate: ctx.sampleRate, sampleRate: req.sampleRate };
}

function emit(s: Session, samples: Float32Array): void {
  if (samples.length === 0) return;
  const { pcm, clipped } = floatToInt16(samples);
  s.frames += pcm.length;
  send({ t: 'pcm', seq: s.seq++, pcm, clipped });
}

/** Notices a device that went away: the engine does not tell, it just pads with silence. */
async function watchdog(s: Session, req: StartRequest): Promise<void> {
  if (s.ending || session !== s) return;
  const quietMs = Date.now() - s.lastCallback;
  if (quietMs > Math.max(2000, req.stallMs)) {
    return fail(s, { code: 'Unavailable', message: `The audio engine stopped delivering audio (nothing for ${Math.round(quietMs / 1000)} s). Stop and start the capture again.`, details: { reason: 'engine-stalled' } });
  }
  const stalledFrames = (req.stallMs * req.deviceRate) / 1000;
  if (s.padding.trailingZeros < stalledFrames) return;
  const now = (await usableInputs()).map((d) => d.deviceId);
  const gone = s.device.id === DEFAULT_DEVICE_ID ? s.startInputs.some((id) => !now.includes(id)) || now.length === 0 : !now.includes(s.device.id);
  if (!gone) return;
  await fail(s, {
    code: 'Disconnected',
    message: `The microphone "${s.device.name}" was disconnected (or its sound server stopped). Plug it back in and start again; what was recorded so far is kept.`,
    details: { disconnected: true, deviceId: s.device.id },
  });
}

async function fail(s: Session, error: WireFault): Promise<void> {
  if (s.ending) return;
  await teardown(s);
  sendAndExit({ t: 'fault', error });
}

async function teardown(s: Session): Promise<void> {
  s.ending = true;
  clearInterval(s.timer);
  s.processor.onaudioprocess = null;
  try {
    s.source.disconnect();
    s.processor.disconnect();
  } catch {
    // already disconnected
  }
  await s.ctx.close().catch(() => undefined);
  session = null;
}

async function stop(): Promise<StopResult> {
  const s = session;
  if (!s) return { frames: 0, paddingFrames: 0 };
  await teardown(s);
  const tail = s.padding.flush();
  emit(s, s.resampler.process(tail));
  emit(s, s.resampler.flush());
  return { frames: s.frames, paddingFrames: s.padding.removedFrames };
}

async function handle(msg: ToWorker): Promise<void> {
  try {
    if (msg.t === 'stop') return sendAndExit({ t: 'result', id: msg.id, ok: true, value: await stop() });
    const value = msg.t === 'list' ? await listDevices() : await start(msg.req);
    send({ t: 'result', id: msg.id, ok: true, value });
  } catch (err) {
    const error: WireFault = err instanceof Fault ? err.wire : { code: 'Internal', message: `Audio capture failed: ${err instanceof Error ? err.message : String(err)}` };
    send({ t: 'result', id: msg.id, ok: false, error });
  }
}

// Audio threads that run late lose audio (the engine's device queue overflows). Ask for a
// higher scheduling priority before node-web-audio-api starts its threads (they inherit it);
// without the right to (most desktops) this quietly stays as it was.
let niced = false;
try {
  setPriority(-10);
  niced = true;
} catch {
  // EACCES: not allowed, fine
}

if (!process.send) {
  process.stderr.write('capture-worker: run by the Capture Desk core (child_process.fork), not directly.\n');
  process.exit(2);
}
// Never outlive the core, even while this thread is stuck inside the sound library: a watcher
// thread ends the process within ~1.5 s of the core's death (see parent-watch.ts).
watchParent({ graceMs: 1000 });
recordSelf(process.env, Number(process.env[PARENT_PID_ENV]) || process.ppid);
process.on('message', (m) => void handle(m as ToWorker));

/** Asked to leave (the core let go of the IPC channel, or SIGTERM): release the device, then go. */
let leaving = false;
function leave(): void {
  if (leaving) return;
  leaving = true;
  setTimeout(() => process.exit(0), 500).unref();
  void (session ? teardown(session) : Promise.resolve()).finally(() => process.exit(0));
}
// The core went away or asks us to go: never keep a microphone open for nobody.
process.on('disconnect', leave);
process.on('SIGTERM', leave);
send({ t: 'ready', pid: process.pid });
if (niced) send({ t: 'log', level: 'info', msg: 'audio capture runs at raised priority', fields: { nice: -10 } });
