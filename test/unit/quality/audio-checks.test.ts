import { describe, expect, it } from 'vitest';
import { encodeWav } from '../../../src-main/core/samples/formats/wav.js';
import { checkSample } from '../../../src-main/core/samples/quality/check-sample.js';

const RATE = 16_000;
const tone = (ms: number, amp = 8000, f = 440) => Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * f * i) / RATE)) || 1);
const check = (pcm: Int16Array, minLengthMs = 500, channels = 1) => checkSample({ bytes: encodeWav(pcm, { sampleRate: RATE, channels }) }, { name: 'a.wav', kind: 'audio' }, { minLengthMs });
const codes = async (p: ReturnType<typeof check>) => (await p).findings.map((f) => `${f.code}:${f.severity}`);

describe('audio sample checks', () => {
  it('finds nothing wrong with a tone', async () => {
    expect(await codes(check(tone(1000)))).toEqual([]);
  });

  it('calls a recording of digital zero or of a whisper under −60 dBFS silent', async () => {
    expect(await codes(check(new Int16Array(RATE)))).toEqual(['silence:error']);
    const whisper = await check(tone(1000, 20));
    expect(whisper.findings).toEqual([expect.objectContaining({ code: 'silence', severity: 'error' })]);
    expect(whisper.findings[0]!.message).toContain('dBFS for the whole 1.0 s');
  });

  it('flags clipping by the share of samples cut at full scale, not a peak that touches it once', async () => {
    const clip = (share: number) => {
      const pcm = tone(1000, 8000);
      const every = Math.round(1 / share);
      for (let i = 0; i + 1 < pcm.length; i += every) (pcm[i] = 32767), (pcm[i + 1] = 32767);
      return pcm;
    };
    const touch = tone(1000);
    touch[100] = 32767;
    expect(await codes(check(touch))).toEqual([]);
    expect(await codes(check(clip(0.002)))).toEqual(['clipping:warning']);
    const square = Int16Array.from({ length: RATE }, (_, i) => (Math.floor(i / 20) % 2 ? 32767 : -32768));
    expect(await codes(check(square))).toEqual(['clipping:error']);
  });

  it('flags runs of exact zeros inside the sound as dropouts, not leading warm-up or a short natural zero', async () => {
    const withHoles = (holes: number, ms: number, lead = 0) => {
      const pcm = tone(2000);
      for (let i = 0; i < lead; i++) pcm[i] = 0;
      for (let h = 1; h <= holes; h++) pcm.fill(0, h * 4000, h * 4000 + (RATE * ms) / 1000);
      return pcm;
    };
    expect(await codes(check(withHoles(0, 0, 8000)))).toEqual([]); // 0.5 s of warm-up zeros
    expect(await codes(check(withHoles(3, 5)))).toEqual([]); // 5 ms: shorter than a dropout
    const few = await check(withHoles(2, 20));
    expect(few.findings).toEqual([expect.objectContaining({ code: 'dropouts', severity: 'warning' })]);
    expect(few.findings[0]!.message).toContain('2 stretches of exact silence (40 ms in all)');
    expect(await codes(check(withHoles(7, 30)))).toEqual(['dropouts:error']); // 210 ms of 2 s
  });

  it('checks stereo frames and too-short recordings; other bit depths only for length', async () => {
    const stereo = Int16Array.from({ length: RATE * 2 }, (_, i) => Math.round(5000 * Math.sin(i / 7)) || 1);
    expect(await codes(check(stereo, 500, 2))).toEqual([]);
    expect(await codes(check(tone(200)))).toEqual(['too-short:error']);
    const wav8 = encodeWav(tone(1000), { sampleRate: RATE });
    wav8.writeUInt16LE(8, 34); // claims 8-bit: not analysed, still measured
    const r = await checkSample({ bytes: wav8 }, { name: 'a.wav', kind: 'audio' }, { minLengthMs: 5000 });
    expect(r.findings.map((f) => f.code)).toEqual(['too-short']);
  });

  it('calls a file that is not a WAV unreadable', async () => {
    const r = await checkSample({ bytes: Buffer.from('RIFF....AVI LIST') }, { name: 'a.wav', kind: 'audio' }, { minLengthMs: 0 });
    expect(r.findings).toEqual([expect.objectContaining({ code: 'unreadable', severity: 'error' })]);
  });

  it('leaves kinds it cannot look into alone, except for their declared length', async () => {
    const img = await checkSample({ bytes: Buffer.from([0xff, 0xd8]) }, { name: 'a.jpg', kind: 'image' }, { minLengthMs: 500 });
    expect(img.findings).toEqual([]);
    const csv = await checkSample({ bytes: Buffer.from('a,b\n1,2\n') }, { name: 'a.csv', kind: 'sensor', lengthMs: 100 }, { minLengthMs: 500 });
    expect(csv.findings.map((f) => f.code)).toEqual(['too-short']);
  });
});
