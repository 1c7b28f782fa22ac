// 16-bit mono PCM WAV files made in memory, as test inputs and benchmark fixtures (plain JavaScript,
// so the benchmarks can use it without a build). It is written apart from the app's own encoder
// (src-main/core/samples/formats/wav.ts) on purpose: what the app reads is then checked against a
// writer that does not share its mistakes.

/** The canonical 44-byte header and `frames` samples; `sample(i)` is sample i as an int16 (default: silence). */
export function monoWav(frames, rate, sample) {
  const dataBytes = frames * 2;
  const b = Buffer.alloc(44 + dataBytes);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(36 + dataBytes, 4);
  b.write('WAVEfmt ', 8, 'latin1');
  b.writeUInt32LE(16, 16); // fmt chunk size for plain PCM
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28); // bytes a second
  b.writeUInt16LE(2, 32); // bytes a frame
  b.writeUInt16LE(16, 34); // bits a sample
  b.write('data', 36, 'latin1');
  b.writeUInt32LE(dataBytes, 40);
  if (sample) for (let i = 0; i < frames; i++) b.writeInt16LE(sample(i), 44 + i * 2);
  return b;
}
