/**
 * Rates boards commonly run at: timer-driven sketches, IMU output data rates (ST's 12.5/26/52/104…
 * and Bosch's 25/50/100/200…), audio. A suggestion only: a board on a ceramic resonator can be
 * 0.5 % off its nominal rate, and then its true rate is what the samples need.
 */
export const NICE_RATES_HZ: readonly number[] = [
  0.5, 1, 2, 4, 5, 8, 10, 12.5, 15, 16, 20, 25, 26, 30, 40, 50, 52, 60, 62.5, 80, 100, 104, 120, 125,
  200, 208, 250, 400, 416, 500, 800, 833, 1000, 1600, 1660, 2000, 3200, 3330, 4000, 6400, 6660, 8000,
  11025, 16000, 22050, 32000, 44100, 48000,
];

/** The common rate within `tolerance` (relative) of `hz`, or null. */
export function niceRate(hz: number, tolerance = 0.001): number | null {
  let best: number | null = null;
  for (const r of NICE_RATES_HZ) {
    const off = Math.abs(hz - r) / r;
    if (off <= tolerance && (best === null || off < Math.abs(hz - best) / best)) best = r;
  }
  return best;
}
