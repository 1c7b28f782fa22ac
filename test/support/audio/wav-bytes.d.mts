/** A 16-bit mono PCM WAV of `frames` samples at `rate` Hz; `sample(i)` gives sample i as an int16 (default: silence). */
export declare function monoWav(frames: number, rate: number, sample?: (i: number) => number): Buffer;
