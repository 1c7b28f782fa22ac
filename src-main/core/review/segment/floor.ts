/**
 * The noise floor under an activity curve, per block of frames, following slow changes in the
 * background. Each block's floor is a low percentile of its frames (a click, or the loud half of
 * a block, does not move it), then the median of those within a few blocks either side: a block
 * filled by one long utterance does not become "background", and seconds of digital silence
 * (a microphone that starts late, a recording's end) do not make the room beside them an event.
 */
export interface NoiseFloor {
  /** Power of the floor per block. */
  perBlock: Float32Array;
  framesPerBlock: number;
}

const PERCENTILE = 0.2;

export function noiseFloor(power: Float32Array, framesPerBlock: number, spanBlocks: number, minPower: number): NoiseFloor {
  const blocks = Math.max(1, Math.ceil(power.length / framesPerBlock));
  const low = new Float32Array(blocks);
  const scratch = new Float32Array(framesPerBlock);
  for (let b = 0; b < blocks; b++) {
    const a = b * framesPerBlock;
    const n = Math.min(power.length, a + framesPerBlock) - a;
    if (n <= 0) {
      low[b] = minPower;
      continue;
    }
    const s = scratch.subarray(0, n);
    s.set(power.subarray(a, a + n));
    s.sort();
    low[b] = s[Math.floor(PERCENTILE * (n - 1))]!;
  }
  const perBlock = new Float32Array(blocks);
  const near = new Float32Array(2 * spanBlocks + 1);
  for (let b = 0; b < blocks; b++) {
    const a = Math.max(0, b - spanBlocks);
    const n = Math.min(blocks - 1, b + spanBlocks) - a + 1;
    const s = near.subarray(0, n);
    s.set(low.subarray(a, a + n));
    s.sort();
    perBlock[b] = Math.max(minPower, s[n >> 1]!);
  }
  return { perBlock, framesPerBlock };
}

/** The floor's typical level (median over blocks), for showing to people. */
export function typicalFloor(f: NoiseFloor): number {
  const s = Float32Array.from(f.perBlock).sort();
  return s[Math.floor(s.length / 2)]!;
}
