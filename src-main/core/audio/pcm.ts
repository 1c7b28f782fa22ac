/** 16-bit PCM helpers shared by the capture worker and the recorder. */

export const INT16_FULL_SCALE = 32768;

/**
 * Float samples (-1…1) to 16-bit PCM: scaled by 32767, rounded symmetrically, clamped to
 * ±32767. Returns how many samples were at or beyond full scale (the input clipped there).
 */
export function floatToInt16(input: Float32Array, out: Int16Array = new Int16Array(input.length)): { pcm: Int16Array; clipped: number } {
  let clipped = 0;
  for (let i = 0; i < input.length; i++) {
    const x = input[i]! * 32767;
    let v = x < 0 ? -Math.round(-x) : Math.round(x);
    if (v >= 32767 || v <= -32767) {
      v = v > 0 ? 32767 : -32767;
      clipped++;
    }
    out[i] = v;
  }
  return { pcm: out, clipped };
}

export function int16ToFloat(input: Int16Array): Float32Array {
  const out = new Float32Array(input.length);
  for (let i = 0; i < input.length; i++) out[i] = input[i]! / INT16_FULL_SCALE;
  return out;
}
