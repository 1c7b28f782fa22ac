import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SpokenWord {
  word: string;
  /** Where the word is audible (above −40 dB of its own peak), in ms from the start of the take. */
  startMs: number;
  endMs: number;
}

export interface SpokenTake {
  file: string;
  rate: number;
  lengthMs: number;
  words: SpokenWord[];
}

export interface TakeOptions {
  rate?: number;
  /** Peak level of each word in dBFS, cycled through (a person is not equally loud every time). */
  wordPeaksDb?: number[];
  /** Pink noise (a room, a fan), peak dBFS. */
  noisePeakDb?: number;
  /** Mains hum at 50 Hz with its third harmonic, peak dBFS. */
  humPeakDb?: number;
  leadMs?: number;
  tailMs?: number;
}

/**
 * Words spoken by espeak-ng, one after another with the gaps given, mixed with room noise and a
 * mains hum by sox at realistic levels: a person saying a keyword again and again. Knows where
 * every word is, so a test can check that a window holds all of it.
 */
export async function spokenTake(dir: string, words: string[], gapsMs: number[], o: TakeOptions = {}): Promise<SpokenTake> {
  const rate = o.rate ?? 16_000;
  const peaks = o.wordPeaksDb ?? [-10, -16, -13];
  const pieces: string[] = [];
  const placed: SpokenWord[] = [];
  let at = 0; // samples
  const silence = async (name: string, samples: number) => {
    const f = join(dir, name);
    await run('sox', ['-r', String(rate), '-c', '1', '-n', '-b', '16', f, 'trim', '0', `${samples}s`]);
    pieces.push(f);
    at += samples;
  };
  await silence('lead.wav', Math.round(((o.leadMs ?? 1000) * rate) / 1000));
  for (let i = 0; i < words.length; i++) {
    const raw = join(dir, `raw-${i}.wav`);
    const w = join(dir, `word-${i}.wav`);
    await run('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, words[i]!]);
    // Normalised, trimmed where it falls below −40 dB of its peak, then set to its level.
    await run('sox', [raw, '-r', String(rate), '-c', '1', '-b', '16', w, 'gain', '-n', '0', 'silence', '1', '0.002', '1%', 'reverse', 'silence', '1', '0.002', '1%', 'reverse', 'gain', '-n', String(peaks[i % peaks.length])]);
    const samples = Number((await run('soxi', ['-s', w])).stdout.trim());
    placed.push({ word: words[i]!, startMs: (at / rate) * 1000, endMs: ((at + samples) / rate) * 1000 });
    pieces.push(w);
    at += samples;
    if (i < words.length - 1) await silence(`gap-${i}.wav`, Math.round((gapsMs[i % gapsMs.length]! * rate) / 1000));
  }
  await silence('tail.wav', Math.round(((o.tailMs ?? 1000) * rate) / 1000));
  const speech = join(dir, 'speech.wav');
  await run('sox', [...pieces, speech]);
  const file = join(dir, 'take.wav');
  await background(dir, at, rate, o, speech, file);
  return { file, rate, lengthMs: (at / rate) * 1000, words: placed };
}

/** Only the room: noise and hum, no words (and optionally a loud click), `ms` long. */
export async function roomTone(dir: string, ms: number, o: TakeOptions & { clickAtMs?: number } = {}): Promise<string> {
  const rate = o.rate ?? 16_000;
  const samples = Math.round((ms * rate) / 1000);
  const quiet = join(dir, 'quiet.wav');
  await run('sox', ['-r', String(rate), '-c', '1', '-n', '-b', '16', quiet, 'trim', '0', `${samples}s`]);
  let base = quiet;
  if (o.clickAtMs !== undefined) {
    // A 2 ms full-scale square click: a dropped object, a mouse button next to the microphone.
    const click = join(dir, 'click.wav');
    await run('sox', ['-r', String(rate), '-c', '1', '-n', '-b', '16', click, 'synth', '0.002', 'square', '1000', 'gain', '-1', 'pad', `${o.clickAtMs / 1000}`, `${(ms - o.clickAtMs) / 1000 - 0.002}`]);
    base = join(dir, 'with-click.wav');
    await run('sox', ['-m', '-v', '1', quiet, '-v', '1', click, base, 'trim', '0', `${samples}s`]);
  }
  const file = join(dir, 'room.wav');
  await background(dir, samples, rate, o, base, file);
  return file;
}

async function background(dir: string, samples: number, rate: number, o: TakeOptions, speech: string, out: string): Promise<void> {
  const len = `${samples}s`;
  const noise = join(dir, 'noise.wav');
  const hum = join(dir, 'hum.wav');
  // -R: sox seeds its noise the same every time, so a failing take can be reproduced.
  await run('sox', ['-R', '-r', String(rate), '-c', '1', '-n', '-b', '16', noise, 'synth', len, 'pinknoise', 'gain', '-n', String(o.noisePeakDb ?? -40)]);
  await run('sox', ['-r', String(rate), '-c', '1', '-n', '-b', '16', hum, 'synth', len, 'sine', '50', 'synth', len, 'sine', 'mix', '150', 'gain', '-n', String(o.humPeakDb ?? -30)]);
  // -v on every input: sox mixes at these levels instead of dividing each by the number of inputs.
  await run('sox', ['-m', '-v', '1', speech, '-v', '1', noise, '-v', '1', hum, '-b', '16', out]);
}
