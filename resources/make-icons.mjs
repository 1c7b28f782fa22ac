#!/usr/bin/env node
// Draws the Capture Desk icon (a waveform and a "recording" dot on a rounded square) and writes
// resources/icon.png (512×512) and resources/icons/<n>x<n>.png for Linux. No dependencies: the
// picture is computed per pixel from signed distances (anti-aliased) and written as RGBA PNG with zlib.
// Re-run with `node resources/make-icons.mjs` after changing the design.
import { deflateSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
function encodePng(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const clamp01 = (v) => Math.min(1, Math.max(0, v));
const mix = (a, b, t) => a + (b - a) * t;
// Coverage of a shape from its signed distance (negative inside), in pixels.
const cover = (d, px) => clamp01(0.5 - d / px);

// Everything below is in unit coordinates: the canvas is [0,1]².
function roundedSquareSdf(x, y) {
  const half = 0.44, r = 0.2; // 6 % margin, generous corner radius
  const qx = Math.abs(x - 0.5) - (half - r), qy = Math.abs(y - 0.5) - (half - r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
}
// The waveform: a sine whose amplitude swells in the middle, like a captured burst.
const WAVE_X0 = 0.17, WAVE_X1 = 0.83, WAVE_Y = 0.56;
function wave(x) {
  const t = (x - WAVE_X0) / (WAVE_X1 - WAVE_X0);
  const envelope = 0.04 + 0.16 * Math.sin(Math.PI * t) ** 2;
  return WAVE_Y - envelope * Math.sin(2 * Math.PI * 3 * t);
}
function waveDistance(x, y) {
  // Nearest point on the curve, searched around x (the curve's slope stays moderate).
  let best = Infinity;
  const lo = Math.max(WAVE_X0, x - 0.12), hi = Math.min(WAVE_X1, x + 0.12);
  const steps = 48;
  for (let i = 0; i <= steps; i++) {
    const cx = lo + ((hi - lo) * i) / steps;
    const d = Math.hypot(x - cx, y - wave(cx));
    if (d < best) best = d;
  }
  if (x < WAVE_X0) best = Math.min(best, Math.hypot(x - WAVE_X0, y - wave(WAVE_X0)));
  if (x > WAVE_X1) best = Math.min(best, Math.hypot(x - WAVE_X1, y - wave(WAVE_X1)));
  return best;
}

function render(size) {
  const px = 1 / size;
  const stroke = Math.max(0.028, 1.3 * px); // stays visible at 16 px
  const rgba = Buffer.alloc(size * size * 4);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      const x = (i + 0.5) * px, y = (j + 0.5) * px;
      const bgA = cover(roundedSquareSdf(x, y), px);
      // Background: deep blue, lighter at the top.
      let r = mix(0x25, 0x0f, y), g = mix(0x4a, 0x17, y), b = mix(0x8c, 0x3a, y);
      // Faint baseline grid line behind the wave.
      const gridA = 0.25 * cover(Math.abs(y - WAVE_Y) - 0.5 * Math.max(px, 0.006), px) * (x > 0.12 && x < 0.88 ? 1 : 0);
      r = mix(r, 0x94, gridA); g = mix(g, 0xa3, gridA); b = mix(b, 0xb8, gridA);
      // Waveform in cyan.
      const waveA = cover(waveDistance(x, y) - stroke, px);
      r = mix(r, 0x22, waveA); g = mix(g, 0xd3, waveA); b = mix(b, 0xee, waveA);
      // Recording dot, top right.
      const dotA = cover(Math.hypot(x - 0.73, y - 0.27) - 0.075, px);
      r = mix(r, 0xef, dotA); g = mix(g, 0x44, dotA); b = mix(b, 0x44, dotA);
      const o = (j * size + i) * 4;
      rgba[o] = Math.round(r);
      rgba[o + 1] = Math.round(g);
      rgba[o + 2] = Math.round(b);
      rgba[o + 3] = Math.round(255 * bgA);
    }
  }
  return encodePng(size, rgba);
}

mkdirSync(join(here, 'icons'), { recursive: true });
for (const size of LINUX_SIZES) {
  const png = render(size);
  writeFileSync(join(here, 'icons', `${size}x${size}.png`), png);
  if (size === 512) writeFileSync(join(here, 'icon.png'), png);
}
console.log(`wrote resources/icon.png and resources/icons/{${LINUX_SIZES.map((s) => `${s}x${s}`).join(',')}}.png`);
