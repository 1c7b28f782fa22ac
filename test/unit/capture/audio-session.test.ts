import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Microphones } from '../../../src-main/core/audio/microphones.js';
import { RecordingService } from '../../../src-main/core/capture/recording-service.js';
import { systemClock } from '../../../src-main/core/clock.js';
import type { RecordingStatus } from '../../../src-main/core/contract/contract.js';
import { CoreError } from '../../../src-main/core/errors.js';
import { EventBus } from '../../../src-main/core/event-bus.js';
import { silentLogger } from '../../../src-main/core/log.js';
import { SampleStore } from '../../../src-main/core/samples/sample-store.js';
import { StreamHub } from '../../../src-main/core/stream/stream-hub.js';
import { FakeInput } from '../../support/audio/fake-input.js';

// The session logic around a microphone part, with a scripted capture (the real one is in
// test/integration/core-audio.test.ts): frames counted exactly, marks in WAV frames, interruptions.
let dir: string;
let store: SampleStore;
let input: FakeInput;
let bus: EventBus;
let hub: StreamHub;
let service: RecordingService;
let states: RecordingStatus[];
let saved: Array<{ ids: string[]; queued: boolean }>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'audio-session-'));
  store = await SampleStore.open(dir, silentLogger);
  input = new FakeInput();
  bus = new EventBus();
  hub = new StreamHub(bus, systemClock);
  const mics = await Microphones.open({ input, dataDir: dir, bus, log: silentLogger, stopSource: (id) => hub.stop(id), onDevicesChanged: () => {} });
  await mics.refresh();
  hub.register('audio:', mics.factory);
  saved = [];
  service = new RecordingService({
    hub, store, bus, log: silentLogger, deviceName: () => 'bench', hmacKey: async () => undefined,
    onSaved: (ids, queued) => saved.push({ ids, queued }),
    audio: { input, preRollMs: () => mics.settings().preRollMs },
  });
  states = [];
  bus.on('record.state', (s) => states.push(s));
});
afterEach(async () => {
  await service.stopAll();
  await hub.stopAll();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const tone = (frames: number, value = 1000) => new Int16Array(frames).fill(value);
const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};
const finalOf = (sessionId: string) => states.find((s) => s.sessionId === sessionId && (s.state === 'saved' || s.state === 'failed'));

describe('recording a microphone in a session', () => {
  it('keeps the pre-roll and exactly the set length in frames, even when the audio arrives after the timer', async () => {
    await hub.start('audio:default');
    input.held = tone(16_000, 7);
    const st = await service.start({ sourceIds: ['audio:default'], label: 'yes', category: 'training', lengthMs: 100, preRollMs: 250 });
    await new Promise((r) => setTimeout(r, 150)); // the session's timer ran out: the audio is still on its way
    input.feed(tone(1000));
    input.feed(tone(1000)); // 600 frames too many: cut
    await until(() => finalOf(st.sessionId) !== undefined);
    const done = finalOf(st.sessionId)!;
    expect(done).toMatchObject({ state: 'saved', interruptions: [], error: null });
    const sample = store.get(done.sampleIds[0]!);
    expect(sample).toMatchObject({ kind: 'audio', label: 'yes', state: 'queued', incomplete: false, lengthMs: 350, metadata: { session: st.sessionId } });
    expect(sample.extra).toMatchObject({ rows: 4000 + 1600, pre_roll_ms: 250, sample_rate: 16_000, source: 'audio:default' });
    expect(saved).toEqual([{ ids: [sample.id], queued: true }]);
  });

  it('stopped by hand: what arrived so far; marks land on WAV frames; the pre-roll comes from the settings', async () => {
    await hub.start('audio:default');
    const st = await service.start({ sourceIds: ['audio:default'], label: 'noise', category: 'testing', queue: false });
    input.feed(tone(1600));
    service.mark(st.sessionId, 'knock');
    input.feed(tone(800));
    service.mark(st.sessionId, null);
    input.feed(tone(1600));
    const done = await service.stop(st.sessionId);
    const sample = store.get(done.sampleIds[0]!);
    expect(sample).toMatchObject({ state: 'local', incomplete: false, lengthMs: 250 });
    expect(sample.structuredLabels).toEqual([
      { startIndex: 0, endIndex: 1599, label: 'noise' },
      { startIndex: 1600, endIndex: 2399, label: 'knock' },
      { startIndex: 2400, endIndex: 3999, label: 'noise' },
    ]);
  });

  it('a device that drops out: said in the status at once, the part saved as incomplete and not queued', async () => {
    await hub.start('audio:default');
    const st = await service.start({ sourceIds: ['audio:default'], label: 'cut', category: 'training', lengthMs: 60_000 });
    input.feed(tone(3200));
    input.errors.emit(new CoreError('Disconnected', 'The microphone was disconnected.', { disconnected: true }));
    // Told while it happens, before anything is saved.
    expect(states.some((s) => s.state === 'recording' && s.interruptions.length === 1)).toBe(true);
    await until(() => finalOf(st.sessionId) !== undefined);
    const done = finalOf(st.sessionId)!;
    expect(done.state).toBe('saved');
    expect(done.interruptions).toEqual([{ sourceId: 'audio:default', error: { code: 'Disconnected', message: 'The microphone was disconnected.', details: { disconnected: true } } }]);
    const sample = store.get(done.sampleIds[0]!);
    expect(sample).toMatchObject({ incomplete: true, state: 'local', lengthMs: 200 });
    expect(sample.note).toMatch(/incomplete: The microphone was disconnected/);
  });

  it('a microphone and the simulator in one session: both saved with the same session id', async () => {
    await hub.start('audio:default');
    await hub.start('simulated:imu', 100);
    const st = await service.start({ sourceIds: ['audio:default', 'simulated:imu'], label: 'both', category: 'training', queue: false });
    input.feed(tone(1600));
    await new Promise((r) => setTimeout(r, 300));
    const done = await service.stop(st.sessionId);
    expect(done.sampleIds).toHaveLength(2);
    const kinds = done.sampleIds.map((id) => store.get(id)).map((s) => [s.kind, s.metadata.session]);
    expect(kinds.sort()).toEqual([['audio', st.sessionId], ['sensor', st.sessionId]]);
  });

  it('takes of one session begin together: a board started while the microphone warms up keeps none of that wait, counts its length from the common start', async () => {
    await hub.start('audio:default');
    await hub.start('simulated:imu', 100);
    let warmedUp!: () => void;
    input.live = new Promise<void>((r) => (warmedUp = r));
    // The board is asked first, yet the microphone is started after it: it warms up for 600 ms.
    const starting = service.start({ sourceIds: ['simulated:imu', 'audio:default'], label: 'both', category: 'training', lengthMs: 1000, queue: false });
    await new Promise((r) => setTimeout(r, 600));
    warmedUp();
    const st = await starting;
    // Marked at once: each part's mark lands where its take begins.
    service.mark(st.sessionId, 'knock');
    for (let i = 0; i < 10; i++) input.feed(tone(1600));
    const done = await service.settled(st.sessionId);
    expect(done).toMatchObject({ state: 'saved', error: null });
    const board = done.sampleIds.map((id) => store.get(id)).find((s) => s.kind === 'sensor')!;
    const mic = done.sampleIds.map((id) => store.get(id)).find((s) => s.kind === 'audio')!;
    // Exactly the set length from the common start: none of the ~60 rows of the warm-up.
    expect(board.extra).toMatchObject({ rows: 100 });
    expect(mic.extra).toMatchObject({ rows: 16_000 });
    expect(board.structuredLabels![0]!.label).toBe('knock');
    expect(board.structuredLabels![0]!.startIndex).toBeLessThanOrEqual(2);
    expect(mic.structuredLabels![0]).toMatchObject({ label: 'knock', startIndex: 0 });
  });

  it('no microphone capture in this shell: a typed refusal, nothing left behind', async () => {
    const bare = new RecordingService({ hub, store, bus, log: silentLogger, deviceName: () => 'x', hmacKey: async () => undefined, onSaved: () => {} });
    await hub.start('audio:default');
    await expect(bare.start({ sourceIds: ['audio:default'], label: null, category: 'training' })).rejects.toMatchObject({ code: 'Unavailable' });
  });
});
