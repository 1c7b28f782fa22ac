/**
 * A 3-axis accelerometer lying still (gravity on z, sensor noise, a slow drift) while someone
 * repeats a gesture with pauses: a shake on x, a wave on y, a tilt that swings gravity from z to y
 * and back. Knows where every gesture is, so a test can check that a window holds all of it.
 */
export interface GestureTake {
  values: number[][];
  intervalMs: number;
  gestures: Array<{ kind: 'shake' | 'wave' | 'tilt'; startMs: number; endMs: number }>;
}

export function gestureTake(plan: Array<{ kind: 'shake' | 'wave' | 'tilt'; atMs: number; ms: number }>, lengthMs: number, intervalMs = 10, seed = 5): GestureTake {
  let s = seed >>> 0;
  const uniform = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const noise = () => (uniform() + uniform() + uniform() - 1.5) * 0.25; // ≈ 0.12 m/s² σ
  const rows = Math.round(lengthMs / intervalMs);
  const values = Array.from({ length: rows }, (_, i) => {
    const drift = 0.05 * Math.sin((2 * Math.PI * i * intervalMs) / 40_000);
    return [noise() + drift, noise(), 9.81 + noise()];
  });
  for (const g of plan) {
    const a = Math.round(g.atMs / intervalMs);
    const n = Math.round(g.ms / intervalMs);
    for (let k = 0; k < n && a + k < rows; k++) {
      const env = Math.sin((Math.PI * k) / n); // starts and ends at rest
      const t = (k * intervalMs) / 1000;
      const row = values[a + k]!;
      if (g.kind === 'shake') row[0]! += 6 * env * Math.sin(2 * Math.PI * 4 * t);
      else if (g.kind === 'wave') row[1]! += 3 * env * Math.sin(2 * Math.PI * 1.5 * t);
      else {
        const angle = (Math.PI / 3) * env; // up to 60°
        row[1]! += 9.81 * Math.sin(angle);
        row[2]! += 9.81 * (Math.cos(angle) - 1);
      }
    }
  }
  return { values, intervalMs, gestures: plan.map((g) => ({ kind: g.kind, startMs: g.atMs, endMs: g.atMs + g.ms })) };
}
