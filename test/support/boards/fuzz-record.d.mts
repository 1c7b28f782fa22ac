import type { FuzzExpected, FuzzKind } from './fuzz-lines.mjs';

export interface FuzzBoardReport {
  event: 'done';
  seed: number;
  bytes: number;
  /** Bytes printed after "go" (the fuzz part). */
  fuzzBytes: number;
  ms: number;
  /** What the reader must report for the fuzz part. */
  expected: FuzzExpected;
  /** Pieces of the fuzz part by kind. */
  counts: Record<FuzzKind, number>;
  /** Good lines sent in all, prelude included. */
  goodRows: number;
  maxDrainMs: number;
}

export interface FuzzRecording {
  seed: number;
  board: FuzzBoardReport;
  exit: { code: number | null; signal: NodeJS.Signals | null };
  stderr: string;
  sample: (Record<string, unknown> & { file: string; rows: number; rejected_lines: number }) | null;
  rows: { recorded: number; sent: number; first: number | null; fuzzFirst: number; missing: number; wrong: number; firstWrong: { row: number; got: number[]; want: string } | null };
  rejected: { total: number | null; byReason: Record<string, number>; inSample: Record<string, number> | null };
  rss: { base: number | null; maxDuring: number; peak: number; readings: number };
  /** The CLI's CPU time over the fuzz and drain, as a share of one core. */
  cpuShare: number;
  /** Ctrl+C to the sample saved, ms. */
  saveMs: number;
}

export declare function recordFuzzBoard(o: {
  cli: string;
  hostPath: string;
  boardPath: string;
  seed: number;
  /** Bytes per second. */
  rate: number;
  seconds: number;
  longChance?: number;
  bursts?: boolean;
}): Promise<FuzzRecording>;
