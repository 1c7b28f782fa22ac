export type FuzzKind = 'good' | 'blank' | 'text' | 'nan' | 'width' | 'garbage' | 'nul' | 'too-long';
export declare const KINDS: readonly FuzzKind[];
export declare const REASON: Record<Exclude<FuzzKind, 'good' | 'blank'>, 'text' | 'nan' | 'width' | 'garbage' | 'too-long'>;
export interface FuzzPiece {
  kind: FuzzKind;
  bytes: Buffer;
  /** For 'good': the values the line holds. */
  row?: number[];
}
export interface FuzzExpected {
  rows: number;
  blank: number;
  bad: { text: number; nan: number; width: number; garbage: number; 'too-long': number };
}
export declare class FuzzLines {
  constructor(seed: number, o?: { maxLineBytes?: number; longChance?: number });
  readonly seed: number;
  readonly counts: Record<FuzzKind, number>;
  readonly goodRows: number;
  readonly bytes: number;
  good(): FuzzPiece;
  next(): FuzzPiece;
  expected(): FuzzExpected;
}
