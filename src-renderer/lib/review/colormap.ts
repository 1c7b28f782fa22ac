/** 256 RGBA entries from dark blue through green to yellow, for spectrogram bytes (0 = quiet). */
export function spectrumColors(): Uint8ClampedArray {
  const stops: Array<[number, number, number, number]> = [
    [0, 13, 8, 40], [0.25, 60, 20, 120], [0.5, 30, 130, 140], [0.75, 120, 200, 70], [1, 250, 230, 40],
  ];
  const lut = new Uint8ClampedArray(256 * 4);
  for (let i = 0; i < 256; i++) {
    const t = i / 255;
    let k = 0;
    while (k < stops.length - 2 && t > stops[k + 1]![0]) k++;
    const [t0, r0, g0, b0] = stops[k]!;
    const [t1, r1, g1, b1] = stops[k + 1]!;
    const f = (t - t0) / (t1 - t0);
    lut.set([r0 + (r1 - r0) * f, g0 + (g1 - g0) * f, b0 + (b1 - b0) * f, 255], i * 4);
  }
  return lut;
}
