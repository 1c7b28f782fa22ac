import type { Tone } from './signal.mjs';
export interface Pulse { env: { PULSE_SERVER: string; XDG_RUNTIME_DIR: string }; sink: string; pid: number | undefined; stop(): Promise<void> }
export function startPulse(o?: { sink?: string; rate?: number }): Promise<Pulse>;
export interface PlayingTone { readonly stderr: string; readonly underruns: number; setTones(tones: Tone[]): void; stop(): Promise<void> }
export function playTone(o: { env: Record<string, string>; sink: string; tones: Tone[]; rate?: number; latencyMs?: number; leadMs?: number; alternate?: { tones: Tone[]; everyMs: number } }): PlayingTone;
export function testPulseFromEnv(): { env: { PULSE_SERVER: string }; sink: string };
export interface PrivateSink { sink: string; env: Record<string, string>; unload(): Promise<void> }
export function privateSink(serverEnv: Record<string, string>, name?: string): Promise<PrivateSink>;
export function toneMicrophone(serverEnv: Record<string, string>, freq: number, cleanups: Array<() => unknown>): Promise<Record<string, string>>;
