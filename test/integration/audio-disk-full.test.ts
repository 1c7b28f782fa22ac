import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AudioLevels, RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import { playTone, testPulseFromEnv } from '../support/audio/pulse.mjs';
import { dominantFrequencies, readWav } from '../support/audio/signal.mjs';
import { startCore, useCaptureWorker, useCleanups } from '../support/core-harness.js';
import { fillDisk, smallDisk } from '../support/small-disk.js';

// Issue 13, item 2 for microphones: the real PulseAudio virtual microphone recorded into a data
// folder on a small tmpfs that fills up. The recording stops when the disk is full (not when
// someone presses stop), the WAV and its note stay in recordings/, and the next start turns them
// into an incomplete sample of whole frames.
const worker = useCaptureWorker();
const cleanups = useCleanups();

const open = (dataDir: string, env: Record<string, string>) => startCore(cleanups, { dataDir, uploads: false, serial: null, audio: { workerPath: worker(), env } });

describe('a microphone recording on a disk that fills up', () => {
  it('stops when the disk is full, keeps the WAV for recovery, and the next start makes it an incomplete sample of whole frames', async () => {
    const server = testPulseFromEnv();
    const tone = playTone({ env: server.env, sink: server.sink, tones: [{ freq: 1000, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    const disk = await smallDisk(cleanups, 4096);
    const dataDir = join(disk, 'data');
    const first = await open(dataDir, server.env);
    await first.call('stream.start', { sourceId: 'audio:default' });
    // Recording only once the tone is heard, so the kept WAV has it from its first frame.
    await expect.poll(() => first.events.filter(([n, p]) => n === 'audio.levels' && (p as AudioLevels).rmsDbfs > -12).length, { timeout: 15_000 }).toBeGreaterThan(3);

    // About 3 s of 16 kHz mono (32 KB/s) fit; then the disk is full.
    const filler = await fillDisk(disk, 96);
    const started = Date.now();
    const st = await first.call<RecordingStatus>('record.start', { sourceIds: ['audio:default'], label: 'hum', category: 'training', metadata: { room: 'lab' }, queue: false });
    const ended = () => first.finished(st.sessionId);
    await expect.poll(ended, { timeout: 15_000, message: 'the recording stopped by itself when the disk filled' }).toBeTruthy();
    expect(Date.now() - started).toBeLessThan(12_000);
    const failed = ended()!;
    expect(failed.state).toBe('failed');
    expect(failed.error).toMatch(/audio:default: Could not write to .*recordings: the disk is full \(ENOSPC\)\. Free some space on that disk\. The (\d+) frames recorded before that are kept in .*recordings\/.*\.wav; .*capture-desk samples recover/);
    expect(failed.interruptions[0]).toMatchObject({ sourceId: 'audio:default', error: { message: expect.stringMatching(/disk is full/) } });
    const framesOnDisk = Number(/The (\d+) frames/.exec(failed.error!)![1]);
    const kept = (await readdir(join(dataDir, 'recordings'))).sort();
    expect(kept.filter((f) => f.endsWith('.wav'))).toHaveLength(1);
    expect(kept.filter((f) => f.endsWith('.audio.json'))).toHaveLength(1);
    expect((await first.call<{ samples: Sample[] }>('samples.list', {})).samples).toEqual([]);
    // Still usable: the microphone streams on.
    const before = first.events.filter(([n]) => n === 'audio.levels').length;
    await expect.poll(() => first.events.filter(([n]) => n === 'audio.levels').length, { timeout: 5000 }).toBeGreaterThan(before + 5);
    await first.close();

    // Space freed; the next start recovers the WAV.
    await rm(filler);
    const next = await open(dataDir, server.env);
    const { samples } = await next.call<{ samples: Sample[] }>('samples.list', {});
    expect(samples).toHaveLength(1);
    const s = samples[0]!;
    expect(s).toMatchObject({ kind: 'audio', label: 'hum', category: 'training', incomplete: true, state: 'local', metadata: { room: 'lab' } });
    const file = join(dataDir, s.file);
    const wav = await readWav(file);
    expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, bits: 16 });
    expect(wav.frames).toBeGreaterThan(16_000); // more than a second of it survived
    expect(s.extra.rows).toBe(wav.frames);
    expect(wav.frames).toBe(framesOnDisk); // the count the error gave is what was kept
    expect((await stat(file)).size).toBe(44 + wav.frames * 2); // whole frames only, header and data agree
    const [peak] = dominantFrequencies(wav.samples, 16_000, 1);
    expect(Math.abs(peak!.freq - 1000)).toBeLessThan(10);
    expect(await readdir(join(dataDir, 'recordings'))).toEqual([]);
  }, 90_000);
});
