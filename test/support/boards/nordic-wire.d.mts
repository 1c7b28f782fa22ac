export function crc16(bytes: Uint8Array | number[]): number;
export function cobs(data: Uint8Array | number[]): Buffer;
export function frame(cbor: Uint8Array, o?: { crc?: boolean }): Buffer;
export function sessionInfo(si: { sid: number; hz: number; names: string[]; st?: number; dr?: number; name?: string }, o?: { indefinite?: boolean }): Buffer;
export function sensorData(sd: { seq: number; ts: number; values: number[] }, o?: { indefinite?: boolean; int32?: boolean }): Buffer;
export function onWire(v: number, int32: boolean): number;
export function nordicValue(seq: number, c: number): number;
