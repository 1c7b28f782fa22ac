// Types for test-model.mjs (the test model kit: a stand-in WebAssembly export with known answers).

export interface TestModelFaults {
  /** run_classifier / run_classifier_continuous on an input with no non-zero value aborts the runtime. */
  abortOnZeros?: boolean;
  /** Any input value greater than this aborts the runtime (a "poison" window). */
  abortWhenAbove?: number;
  /** onRuntimeInitialized is never called (and the embind functions never appear). */
  neverStarts?: boolean;
  /** Delay before the runtime starts and onRuntimeInitialized is called. */
  startDelayMs?: number;
  /** Register process-wide uncaughtException/unhandledRejection handlers that re-throw. */
  processHandlers?: boolean;
  /** Every classification returns this (negative) r.result, with all label values 0. */
  resultError?: number;
  /** Each classification call busy-waits this long. */
  slowMs?: number;
}

export interface TestModelOptions {
  generation: 'old' | 'new';
  /** Default 2 (accelerometer); 1 microphone; 3 camera. */
  sensor?: number;
  /** Hz. */
  frequency: number;
  /** Samples PER AXIS per window. */
  frameSampleCount: number;
  /** The axes the model really takes (old builds do not report it). */
  axes: number;
  labels: string[];
  /** top index = number of levels <= mean |x| of `axis` (default 0); uncertainBand relative, default 0.1. */
  rule?: { axis?: number; levels: number[]; uncertainBand?: number };
  hasAnomaly?: boolean;
  /** Default 'classification' (new builds only report it). */
  modelType?: string;
  inputWidth?: number;
  inputHeight?: number;
  /** New builds: floats per continuous slice (default floor(frameSampleCount*axes/4)). */
  sliceSize?: number;
  faults?: TestModelFaults;
}

export interface ExpectedAnswer {
  label: string;
  confidence: number;
  scores: Record<string, number>;
  /** null when the model has no anomaly block (the glue then reports r.anomaly = 0). */
  anomaly: number | null;
}

export declare const GLUE_FILE: 'edge-impulse-standalone.js';
export declare const WASM_FILE: 'edge-impulse-standalone.wasm';

export declare function testModelGlue(opts: TestModelOptions): string;
export declare function testModelWasm(): Uint8Array;
export declare function writeTestModel(
  dir: string,
  opts: TestModelOptions,
): Promise<{ dir: string; js: string; wasm: string }>;
export declare function zipTestModel(
  dir: string,
  zipPath: string,
  opts?: { extra?: Record<string, string | Uint8Array>; only?: string[] },
): Promise<string>;
export declare function expectedTop(opts: TestModelOptions, window: Float32Array): ExpectedAnswer;
export declare function windowWithEnergy(opts: TestModelOptions, energy: number): Float32Array;
export declare function rowsWithEnergies(opts: TestModelOptions, energies: number[], axes?: number): number[][];

export declare const PRESETS: {
  readonly gestureOld: TestModelOptions;
  readonly gestureNew: TestModelOptions;
  readonly audioNew: TestModelOptions;
  readonly audioOld: TestModelOptions;
  readonly image: TestModelOptions;
};
