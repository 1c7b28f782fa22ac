export interface Wav { channels: number; sampleRate: number; bits: number; samples: Int16Array; frames: number; dataBytes: number }
export interface Tone { freq: number; amp: number }
export function readWav(path: string): Promise<Wav>;
export function toneSamples(tones: Tone[], rate: number, frames: number, startFrame?: number): Float32Array;
export function fft(re: Float64Array, im: Float64Array): void;
export function spectrum(samples: ArrayLike<number>, rate: number): { mag: Float64Array; binHz: number };
export function dominantFrequencies(samples: ArrayLike<number>, rate: number, count?: number, minSeparationHz?: number): Array<{ freq: number; mag: number }>;
export function rmsDbfs(samples: ArrayLike<number>): number;
export function toneDiscontinuities(samples: ArrayLike<number>, freq: number, rate: number, o?: { threshold?: number; skip?: number }): { count: number; at: number[]; all: number[]; maxResidual: number };
export function classifyBreaks(samples: ArrayLike<number>, at: number[], rate: number, o?: { clusterMs?: number; zeroRun?: number }): Array<{ at: number; kind: 'gap' | 'jump'; zeros: number }>;
export function captureBreaks(samples: ArrayLike<number>, freq: number, rate: number, o?: { playerUnderruns?: number; skip?: number; threshold?: number }): { jumps: number; gaps: number; blamed: number; events: Array<{ at: number; kind: 'gap' | 'jump'; zeros: number }>; maxResidual: number };
