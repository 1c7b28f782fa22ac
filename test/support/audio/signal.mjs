// Signal analysis for audio tests and the benchmark: WAV reading, tone generation, FFT peaks,
// and a continuity check that finds dropped or inserted samples in a recorded pure tone.
import { readFile } from 'node:fs/promises';

/** Reads a 16-bit PCM WAV (canonical or with extra chunks). */
export async function readWav(path) {
  const b = await readFile(path);
  if (b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') throw new Error(`${path} is not a WAV file`);
  let fmt = null;
  for (let pos = 12; pos + 8 <= b.length;) {
    const id = b.toString('latin1', pos, pos + 4);
    const size = b.readUInt32LE(pos + 4);
    if (id === 'fmt ') fmt = { channels: b.readUInt16LE(pos + 10), sampleRate: b.readUInt32LE(pos + 12), bits: b.readUInt16LE(pos + 22) };
    if (id === 'data') {
      if (!fmt || fmt.bits !== 16) throw new Error(`${path}: only 16-bit PCM is supported`);
      const bytes = Math.min(size, b.length - pos - 8);
      const samples = new Int16Array(bytes >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = b.readInt16LE(pos + 8 + 2 * i);
      return { ...fmt, samples, frames: samples.length / fmt.channels, dataBytes: size };
    }
    pos += 8 + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

/** Sum of sines, float -1…1. `tones`: [{ freq, amp }]. */
export function toneSamples(tones, rate, frames, startFrame = 0) {
  const out = new Float32Array(frames);
  for (const { freq, amp } of tones) {
    const w = (2 * Math.PI * freq) / rate;
    for (let i = 0; i < frames; i++) out[i] += amp * Math.sin(w * (startFrame + i));
  }
  return out;
}

/** In-place radix-2 complex FFT; re/im lengths must be a power of two. */
export function fft(re, im) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b] * cr - im[b] * ci;
        const ti = re[b] * ci + im[b] * cr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
        const nr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = nr;
      }
    }
  }
}

/** Magnitude spectrum (Hann window, zero-padded to a power of two ≥ 2·length). */
export function spectrum(samples, rate) {
  let n = 1;
  while (n < samples.length * 2) n <<= 1;
  const re = new Float64Array(n);
  const im = new Float64Array(n);
  const len = samples.length;
  for (let i = 0; i < len; i++) re[i] = samples[i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (len - 1)));
  fft(re, im);
  const mag = new Float64Array(n / 2);
  for (let k = 0; k < n / 2; k++) mag[k] = Math.hypot(re[k], im[k]);
  return { mag, binHz: rate / n };
}

/** The `count` strongest spectral peaks (local maxima, refined by parabolic interpolation), strongest first. */
export function dominantFrequencies(samples, rate, count = 1, minSeparationHz = 50) {
  const { mag, binHz } = spectrum(samples, rate);
  const peaks = [];
  for (let k = 2; k < mag.length - 1; k++) {
    if (mag[k] > mag[k - 1] && mag[k] >= mag[k + 1]) {
      const a = Math.log(mag[k - 1] + 1e-12);
      const b = Math.log(mag[k] + 1e-12);
      const c = Math.log(mag[k + 1] + 1e-12);
      const delta = (0.5 * (a - c)) / (a - 2 * b + c);
      peaks.push({ freq: (k + (Number.isFinite(delta) ? delta : 0)) * binHz, mag: mag[k] });
    }
  }
  peaks.sort((x, y) => y.mag - x.mag);
  const out = [];
  for (const p of peaks) {
    if (out.every((q) => Math.abs(q.freq - p.freq) >= minSeparationHz)) out.push(p);
    if (out.length === count) break;
  }
  return out;
}

/** RMS of Int16 samples relative to full scale, in dB. */
export function rmsDbfs(samples) {
  let s = 0;
  for (let i = 0; i < samples.length; i++) s += samples[i] * samples[i];
  return 20 * Math.log10(Math.sqrt(s / samples.length) / 32768 || 1e-9);
}

/**
 * A pure tone obeys x[n] = 2cos(ω)x[n-1] − x[n-2]; a dropped, repeated or inserted sample breaks
 * it. Returns the places where the residual exceeds `threshold` (in sample units), skipping the
 * first `skip` samples (filter start-up).
 */
export function toneDiscontinuities(samples, freq, rate, { threshold = 300, skip = 64 } = {}) {
  const c2 = 2 * Math.cos((2 * Math.PI * freq) / rate);
  const at = [];
  let maxResidual = 0;
  for (let n = Math.max(2, skip); n < samples.length; n++) {
    const r = Math.abs(samples[n] - c2 * samples[n - 1] + samples[n - 2]);
    if (r > threshold) {
      at.push(n);
      n += 2;
    } else if (r > maxResidual) maxResidual = r;
  }
  return { count: at.length, at: at.slice(0, 20), all: at, maxResidual };
}

/**
 * Groups the breaks found by toneDiscontinuities into events and tells what each looks like:
 * "gap" — the tone stops for a while (a run of exact zeros: the source played silence, e.g. the
 * tone player under-ran), or "jump" — the tone continues with a phase jump and no silence
 * (frames were dropped or repeated on the way).
 */
export function classifyBreaks(samples, at, rate, { clusterMs = 30, zeroRun = 8 } = {}) {
  const events = [];
  const gapFrames = Math.round((clusterMs * rate) / 1000);
  for (const n of at) {
    const last = events.at(-1);
    if (last && n - last.end <= gapFrames) last.end = n;
    else events.push({ start: n, end: n });
  }
  return events.map((e) => {
    const from = Math.max(0, e.start - gapFrames);
    const to = Math.min(samples.length, e.end + gapFrames);
    let run = 0;
    let longest = 0;
    for (let i = from; i < to; i++) {
      run = samples[i] === 0 ? run + 1 : 0;
      if (run > longest) longest = run;
    }
    return { at: e.start, kind: longest >= zeroRun ? 'gap' : 'jump', zeros: longest };
  });
}

/**
 * Breaks in a recorded tone that the capture is to blame for: phase jumps (dropped or repeated
 * frames), and silent gaps unless the tone player reported under-runs (then the source itself
 * was silent there).
 */
export function captureBreaks(samples, freq, rate, { playerUnderruns = 0, skip = 64, threshold = 300 } = {}) {
  const d = toneDiscontinuities(samples, freq, rate, { skip, threshold });
  const events = classifyBreaks(samples, d.all, rate);
  const jumps = events.filter((e) => e.kind === 'jump');
  const gaps = events.filter((e) => e.kind === 'gap');
  return { jumps: jumps.length, gaps: gaps.length, blamed: jumps.length + (playerUnderruns > 0 ? 0 : gaps.length), events: events.slice(0, 20), maxResidual: d.maxResidual };
}
