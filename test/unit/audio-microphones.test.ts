import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LevelReport } from '../../src-main/core/audio/levels.js';
import { Microphones } from '../../src-main/core/audio/microphones.js';
import type { AudioLevels, StreamInfo } from '../../src-main/core/contract/contract.js';
import { CoreError } from '../../src-main/core/errors.js';
import { EventBus } from '../../src-main/core/event-bus.js';
import { silentLogger } from '../../src-main/core/log.js';
import type { StreamSink } from '../../src-main/core/stream/stream-hub.js';
import { DEFAULT, FakeInput, USB } from '../support/audio/fake-input.js';

function recordingSink() {
  const seen = { infos: [] as StreamInfo[], interrupted: [] as unknown[], resumed: 0 };
  const sink: StreamSink = {
    info: (i) => seen.infos.push(i),
    rows: () => {},
    stats: () => {},
    ended: () => {},
    interrupted: (e) => seen.interrupted.push(e),
    resumed: () => seen.resumed++,
  };
  return { sink, seen };
}

const report = (rmsDbfs: number): LevelReport => ({
  frames: 533, firstFrame: 0, rmsDbfs, peak: 0.5, peakDbfs: -6, clippedFraction: 0, clipping: false, silent: false,
  waveform: new Float32Array([-0.5, 0.5, -0.4, 0.4]), columnsPerSecond: 200,
});

let dataDir: string;
let input: FakeInput;
let bus: EventBus;
let changed: number;
let stopped: string[];
let recording: string[];
const open = () =>
  Microphones.open({ input, dataDir, bus, log: silentLogger, stopSource: async (id) => stopped.push(id), isRecording: (id) => recording.includes(id), onDevicesChanged: () => changed++ });
const signal = new AbortController().signal;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mics-'));
  input = new FakeInput();
  bus = new EventBus();
  changed = 0;
  stopped = [];
  recording = [];
});

describe('Microphones', () => {
  it('lists input devices as audio:<id> sources with their names and the default flag', async () => {
    const mics = await open();
    await mics.refresh();
    expect(mics.sources((id) => id === 'audio:7781')).toEqual([
      { id: 'audio:default', kind: 'audio', name: 'System default input', detail: 'microphone · system default', streaming: false, default: true },
      { id: 'audio:7781', kind: 'audio', name: 'USB Microphone', detail: 'microphone', streaming: true, default: false },
    ]);
  });

  it('notices microphones plugged in and out (only real changes are told)', async () => {
    const mics = await open();
    mics.watch();
    expect(changed).toBe(1); // the first list
    input.plug([DEFAULT, USB]);
    expect(changed).toBe(1);
    input.plug([DEFAULT]);
    expect(changed).toBe(2);
    expect(mics.sources(() => false).map((s) => s.id)).toEqual(['audio:default']);
    input.plug([]);
    expect(mics.sources(() => false)).toEqual([]);
  });

  it('no sound system: no microphones, no error', async () => {
    input.listDevices = async () => {
      throw new CoreError('Unavailable', 'no ALSA');
    };
    const mics = await open();
    expect(await mics.refresh()).toEqual([]);
  });

  it('starts the capture at the remembered rate, sends the UI levels (never rows), and remembers the device', async () => {
    const mics = await open();
    await mics.refresh();
    await mics.setSettings({ sampleRate: 8000, preRollMs: 250 });
    const sent: AudioLevels[] = [];
    bus.on('audio.levels', (l) => sent.push(l));
    const { sink } = recordingSink();
    const running = await mics.factory('audio:7781', { signal }, sink);
    expect(running).toMatchObject({ uiRows: false, info: { sourceId: 'audio:7781', rateHz: 8000, simulated: false } });
    expect(input.starts).toEqual([{ deviceId: '7781', sampleRate: 8000 }]);
    input.levels.emit(report(-20));
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ sourceId: 'audio:7781', sampleRate: 8000, rmsDbfs: -20, peakDbfs: -6 });
    expect(Array.from(sent[0]!.waveform)).toEqual([-0.5, 0.5, -0.4, 0.4].map(Math.fround));
    expect(mics.settings()).toEqual({ deviceId: '7781', sampleRate: 8000, preRollMs: 250 });
    // Remembered on disk, shared with the CLI (audio-device.json), and read back by a new app.
    expect(JSON.parse(await readFile(join(dataDir, 'audio-device.json'), 'utf8'))).toMatchObject({ deviceId: '7781', name: 'USB Microphone', sampleRate: 8000, preRollMs: 250 });
    expect((await open()).settings()).toEqual({ deviceId: '7781', sampleRate: 8000, preRollMs: 250 });
    await running.stop();
    expect(input.stops).toBe(1);
    input.levels.emit(report(-20));
    expect(sent).toHaveLength(1); // unsubscribed
  });

  it('passes a capture failure on as an interruption, and says when capture is back', async () => {
    const mics = await open();
    await mics.refresh();
    const { sink, seen } = recordingSink();
    await mics.factory('audio:default', { signal }, sink);
    const err = new CoreError('Disconnected', 'unplugged');
    input.errors.emit(err);
    expect(seen.interrupted).toEqual([err]);
    input.states.emit({ ...input.status, state: 'capturing', error: null });
    expect(seen.resumed).toBe(1);
  });

  it('a new sample rate restarts the running capture with it and tells the hub', async () => {
    const mics = await open();
    await mics.refresh();
    const { sink, seen } = recordingSink();
    await mics.factory('audio:default', { signal }, sink);
    await mics.setSettings({ sampleRate: 44_100 });
    expect(input.starts.at(-1)).toEqual({ deviceId: 'default', sampleRate: 44_100 });
    expect(seen.infos.at(-1)).toMatchObject({ rateHz: 44_100 });
    await mics.setSettings({ preRollMs: 100 }); // no restart for a pre-roll change
    expect(input.starts).toHaveLength(2);
  });

  it('one microphone at a time: starting another stops the first; an unknown one is NotFound', async () => {
    const mics = await open();
    await mics.refresh();
    await mics.factory('audio:default', { signal }, recordingSink().sink);
    await mics.factory('audio:7781', { signal }, recordingSink().sink);
    expect(stopped).toEqual(['audio:default']);
    expect(mics.activeSourceId).toBe('audio:7781');
    await expect(mics.factory('audio:nope', { signal }, recordingSink().sink)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('a microphone being recorded is neither switched nor restarted under the recording', async () => {
    const mics = await open();
    await mics.refresh();
    await mics.factory('audio:default', { signal }, recordingSink().sink);
    recording = ['audio:default'];
    await expect(mics.factory('audio:7781', { signal }, recordingSink().sink)).rejects.toMatchObject({ code: 'Busy' });
    await expect(mics.setSettings({ sampleRate: 8000 })).rejects.toMatchObject({ code: 'Busy' });
    expect(mics.settings().sampleRate).toBe(16_000);
    expect(await mics.setSettings({ preRollMs: 500 })).toMatchObject({ preRollMs: 500 }); // takes effect at the next recording
    expect(input.starts).toHaveLength(1);
    expect(stopped).toEqual([]);
  });

  it('refuses settings out of range', async () => {
    const mics = await open();
    await expect(mics.setSettings({ sampleRate: 4000 })).rejects.toThrow();
    await expect(mics.setSettings({ preRollMs: 60_000 })).rejects.toThrow();
  });
});
