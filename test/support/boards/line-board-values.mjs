// The value the simulated line board prints for row i, axis a (noise off), so tests can check
// every recorded number. Four decimals, like a typical Serial.print(x, 4) sketch. A value that
// rounds to −0 is printed "0" (String(-0)), so it is +0 here too (+ 0 turns −0 into +0): tests
// compare with Object.is, and one take in a few thousand rows held such a row (row 1879 at 1 kHz).
export const boardValue = (i, a) => Math.round(Math.sin(i / 10 + a) * (a + 1) * 10000) / 10000 + 0;
