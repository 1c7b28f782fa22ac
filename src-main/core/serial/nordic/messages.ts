import { Decoder } from 'cbor-x';
import { valueKind } from './cbor-kinds.js';

/** The session info (`t = "si"`): sent at session start and every few seconds after. */
export interface SessionInfo {
  readonly type: 'si';
  /** Random per session: a new one means the board restarted the protocol (rebooted). */
  readonly sid: number;
  readonly hz: number;
  readonly names: readonly string[];
  /** App-defined sensor type (1 BMI270, 2 ADXL367, 3 BME688); null when absent. */
  readonly sensorType: number | null;
  /** The board's cumulative producer-side drops since it booted. */
  readonly drops: number;
  readonly deviceName: string;
}

/** One sample (`t = "sd"`). */
export interface SensorData {
  readonly type: 'sd';
  readonly seq: number;
  /** ms since the session started, on the board's clock. */
  readonly ts: number;
  /** In `ch_n` order; int32 micro-units already divided by 10⁶. */
  readonly values: readonly number[];
  /** How the board wrote them: float32, or int32 micro-units. */
  readonly form: 'float' | 'int';
}

export type NordicMessage = SessionInfo | SensorData;

/** Why a frame candidate was not a message. */
export type FrameError = 'cobs' | 'short' | 'crc' | 'cbor' | 'shape' | 'too-long';
export const FRAME_ERRORS: readonly FrameError[] = ['cobs', 'short', 'crc', 'cbor', 'shape', 'too-long'];

const decoder = new Decoder({ mapsAsObjects: true, useRecords: false });
const U32 = 0xffff_ffff;

/** Decodes the CBOR of one message; a string says why it is not one ('cbor' or 'shape'). */
export function decodeMessage(buf: Uint8Array, start: number, end: number): NordicMessage | 'cbor' | 'shape' {
  let env: unknown;
  try {
    env = decoder.decode(buf.subarray(start, end));
  } catch {
    return 'cbor';
  }
  if (!isObject(env) || !isObject(env['d'])) return 'shape';
  const d = env['d'];
  if (env['t'] === 'sd') {
    const seq = d['seq'];
    const ts = d['ts'];
    const val = d['val'];
    if (!isUint(seq, U32) || !isUint(ts, U32) || !Array.isArray(val) || val.length === 0 || val.length > 255) return 'shape';
    if (!val.every((v) => typeof v === 'number')) return 'shape';
    const kind = valueKind(buf, start, end);
    if (kind !== 'float' && kind !== 'int') return 'shape';
    return { type: 'sd', seq, ts, values: kind === 'int' ? (val as number[]).map((v) => v / 1e6) : (val as number[]), form: kind };
  }
  if (env['t'] === 'si') {
    const { sid, hz, ch, ch_n: names, st, dr, name } = d;
    if (!isUint(sid, U32) || !isUint(hz, 0xffff) || hz === 0 || !isUint(ch, 255) || ch === 0) return 'shape';
    if (!Array.isArray(names) || names.length !== ch || !names.every((n) => typeof n === 'string')) return 'shape';
    if (st !== undefined && !isUint(st, 255)) return 'shape';
    if (dr !== undefined && !isUint(dr, U32)) return 'shape';
    if (name !== undefined && typeof name !== 'string') return 'shape';
    return { type: 'si', sid, hz, names: names as string[], sensorType: st ?? null, drops: dr ?? 0, deviceName: name ?? '' };
  }
  return 'shape';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function isUint(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
}
