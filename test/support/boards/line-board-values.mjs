// The value the simulated line board prints for row i, axis a (noise off), so tests can check
// every recorded number. Four decimals, like a typical Serial.print(x, 4) sketch.
export const boardValue = (i, a) => Math.round(Math.sin(i / 10 + a) * (a + 1) * 10000) / 10000;
