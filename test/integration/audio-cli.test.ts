import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../support/cli.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';
import { playTone, privateSink, testPulseFromEnv, type PlayingTone, type PrivateSink } from '../support/audio/pulse.mjs';
import { captureBreaks, dominantFrequencies, readWav } from '../support/audio/signal.mjs';

// The built CLI end to end: `devices audio` and `record audio` against the PulseAudio test
// microphone. Runs once the commands are registered in src-main/cli/main.ts and esbuild builds
// the capture worker to dist/audio/capture-worker.js (both are checked below, and named if missing).
const WORKER = fileURLToPath(new URL('../../dist/audio/capture-worker.js', import.meta.url));
const run = promisify(execFile);

async function wiring(): Promise<string | null> {
  if (!existsSync(CLI)) return `${CLI} is not built`;
  if (!existsSync(WORKER)) return `${WORKER} is not built (esbuild entry src-main/core/audio/capture-worker.ts missing)`;
  const help = await runCli(['record', 'audio', '--help']);
  if (help.code !== 0 || !help.stdout.includes('record audio')) return '"record audio" is not registered in src-main/cli/main.ts';
  return null;
}
const missing = await wiring();
if (missing) console.warn(`audio CLI tests skipped: ${missing}`);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(missing !== null)('capture-desk devices audio / record audio', () => {
  let server: { env: { PULSE_SERVER: string }; sink: string };
  let priv: PrivateSink;
  beforeAll(() => {
    server = testPulseFromEnv();
  });

  async function withTone(freq: number): Promise<{ env: Record<string, string>; tone: PlayingTone }> {
    priv = await privateSink(server.env);
    cleanups.push(() => priv.unload());
    const tone = playTone({ env: priv.env, sink: priv.sink, tones: [{ freq, amp: 0.5 }] });
    cleanups.push(() => tone.stop());
    return { env: priv.env, tone };
  }
  const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-rec-audio-')), 'data');
  const NO_SERVER = { PULSE_SERVER: 'unix:/nonexistent/capture-desk-no-such-socket' };

  it('lists input devices as JSON lines, the system default first', async () => {
    const r = await runCli(['devices', 'audio', '--json', '--data-dir', await dataDir()], { env: server.env });
    expect(r.code).toBe(0);
    const devices = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; name: string; default: boolean; selected: boolean });
    expect(devices[0]).toEqual({ id: 'default', name: 'System default input', default: true, selected: true });
    expect(devices.length).toBeGreaterThan(1);
  });

  it('says so when there is no input device, and exits 0 with an empty list', async () => {
    const r = await runCli(['devices', 'audio', '--json', '--data-dir', await dataDir()], { env: NO_SERVER });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No audio input devices found/);
  });

  it('--select default is taken with no microphone connected (the help allows it always), an unknown id makes no folder', async () => {
    const data = await dataDir();
    const unknown = await runCli(['devices', 'audio', '--select', 'hw:9', '--data-dir', data], { env: NO_SERVER });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no audio input device with id "hw:9"; run "capture-desk devices audio" for the list.');
    expect(existsSync(data)).toBe(false);
    const r = await runCli(['devices', 'audio', '--select', 'default', '--data-dir', data], { env: NO_SERVER });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Recordings will use "System default input" (default).');
    expect(r.stderr).toMatch(/No audio input devices found/);
    expect(JSON.parse(await readFile(join(data, 'audio-device.json'), 'utf8'))).toEqual({ deviceId: 'default', name: 'System default input' });
  });

  it('records 2 s at 16 kHz into a WAV sample and prints one JSON line describing it', async () => {
    const { env, tone } = await withTone(1000);
    const r = await runCli(['record', 'audio', '--rate', '16000', '--length-ms', '2000', '--label', 'tone', '--category', 'testing', '--metadata', '{"room":"lab"}', '--data-dir', await dataDir()], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const s = JSON.parse(lines[0]!) as Record<string, unknown> & { file: string };
    expect(s).toMatchObject({ rows: 32_000, interval_ms: 1000 / 16_000, rejected_lines: 0, state: 'local', label: 'tone', category: 'testing', sample_rate: 16_000, length_ms: 2000, incomplete: false, metadata: { room: 'lab' } });
    expect(typeof s.id).toBe('string');
    expect(s.file.startsWith('/')).toBe(true);
    expect(Number((await run('sox', ['--i', '-D', s.file])).stdout.trim())).toBeCloseTo(2, 2);
    const wav = await readWav(s.file);
    expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, frames: 32_000 });
    const [peak] = dominantFrequencies(wav.samples, 16_000, 1);
    expect(Math.abs(peak!.freq - 1000)).toBeLessThan(10);
    expect(captureBreaks(wav.samples, 1000, 16_000, { playerUnderruns: tone.underruns })).toMatchObject({ blamed: 0 });
    expect(r.stderr).toMatch(/Level: peak -6\.\d dBFS/);
  });

  it('uploads with --upload and exits 0 only when the platform confirmed it', async () => {
    const { env } = await withTone(440);
    const srv = await startIngestionServer();
    cleanups.push(() => srv.close());
    const r = await runCli(['record', 'audio', '--length-ms', '500', '--label', 'up', '--upload', '--ingestion-url', srv.url, '--api-key', 'ei_test_key', '--data-dir', await dataDir()], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ state: 'uploaded', label: 'up', rows: 8000 });
    expect(srv.samples).toHaveLength(1);
    expect(srv.samples[0]).toMatchObject({ label: 'up', category: 'training' });
  });

  it('fails with a typed message and no sample when there is no microphone (the CLI does not crash)', async () => {
    const r = await runCli(['record', 'audio', '--length-ms', '500', '--data-dir', await dataDir()], { env: NO_SERVER });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/No audio input device found/);
  });

  it.each([
    [['--rate', '4000'], '--rate must be a whole number from 8000 to 48000'],
    [['--rate', 'fast'], '--rate must be a whole number'],
    [['--category', 'bogus'], '--category must be one of training, testing, post-processing'],
    [['--metadata', '[1]'], '--metadata must be a JSON object'],
    [['--upload'], '--upload needs --ingestion-url'],
  ])('rejects %j with exit code 2', async (args, message) => {
    const r = await runCli(['record', 'audio', ...args, '--data-dir', await dataDir()], { env: NO_SERVER });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stdout).toBe('');
  });
});
