// Seeded pseudo-random numbers for tests and benchmarks: the same seed gives the same sequence on
// every machine, so a failing fuzz case or a benchmark's input can be made again exactly.

/** mulberry32: small, fast, numbers in [0, 1). */
export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
