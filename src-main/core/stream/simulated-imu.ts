import type { StreamInfo } from '../contract/contract.js';

/**
 * A built-in 3-axis accelerometer so a new user sees a live plot before plugging in a board.
 * Values are a pure function of the row index (slow wobble + 2 Hz shake + gravity on Z +
 * deterministic pseudo-noise), so a test can predict every sample.
 */
export const SIMULATED_IMU_AXES: StreamInfo['axes'] = [
  { name: 'accX', units: 'm/s2' },
  { name: 'accY', units: 'm/s2' },
  { name: 'accZ', units: 'm/s2' },
];

export function simulatedImuRow(index: number, rateHz: number, out: Float32Array, offset: number): void {
  const t = index / rateHz;
  out[offset] = 2 * Math.sin(2 * Math.PI * 0.5 * t) + 0.3 * noise(index, 1);
  out[offset + 1] = 1.5 * Math.sin(2 * Math.PI * 2 * t + 1) + 0.3 * noise(index, 2);
  out[offset + 2] = 9.81 + 0.8 * Math.sin(2 * Math.PI * 5 * t) + 0.3 * noise(index, 3);
}

/** Cheap deterministic noise in [-1, 1): a hash of (index, axis), not Math.random. */
function noise(index: number, axis: number): number {
  let h = (index * 374761393 + axis * 668265263) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return (h & 0xffff) / 32768 - 1;
}
