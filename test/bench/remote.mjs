// Benchmark section "remote": the platform asks `capture-desk connect` for samples over remote
// management, as its "Record new data" page or a script calling start-sampling does.
//
// Real parts: the built CLI in its own process, a numeric board on a socat pseudo-terminal (100 Hz,
// 3 axes), the PulseAudio virtual microphone fed a tone, and the platform emulator (ingestion +
// management HTTP + the remote-management WebSocket service) in this process, so the timestamps of
// the start-sampling POST and of the device's `sampleStarted` frame come from one clock.
// Figures:
//   - start-sampling POST → sampleStarted, median of N requests, numeric board and microphone (< 100 ms)
//   - 50 back-to-back requests on one device: samples stored on the platform and locally, each once
//
//   CAPTURE_DESK_BENCH_REMOTE_REQUESTS   requests per device for the latency figure (default 20)
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { playTone, privateSink, startPulse } from '../support/audio/pulse.mjs';
import { bundleTs } from './ts-bundle.mjs';

const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL('../../dist/cli/capture-desk.js', import.meta.url));
const SUPPORT = fileURLToPath(new URL('../support/', import.meta.url));
const BOARD = fileURLToPath(new URL('../support/boards/line-board.mjs', import.meta.url));
const API_KEY = 'ei_bench_key';
const BACK_TO_BACK = 50;

/** The emulators are TypeScript: bundled into plain ESM that resolves this project's packages. */
async function bundleEmulators() {
  const b = await bundleTs({ ingestion: join(SUPPORT, 'ingestion-server/server.ts'), remote: join(SUPPORT, 'remote-mgmt/server.ts'), pty: join(SUPPORT, 'boards/pty.ts') }, 'capture-desk-bench-remote-');
  return { ingestion: await b.load('ingestion'), remote: await b.load('remote'), pty: await b.load('pty'), dir: b.dir };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** `connect --json` in its own process; resolves once every source said "connected". */
function startConnect(args, env, sources) {
  const child = spawn(process.execPath, [CLI, 'connect', ...args, '--json'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const events = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-20_000)));
  const connected = new Map();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`connect did not connect ${sources} sources within 30 s; stderr:\n${stderr}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`connect exited with ${code}; stderr:\n${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        return;
      }
      events.push(e);
      if (e.event === 'connected') connected.set(e.device_id, e);
      if (connected.size === sources) {
        clearTimeout(timer);
        resolve({ child, events, devices: [...connected.values()], stderr: () => stderr });
      }
    });
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGINT');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** One start-sampling POST; resolves with ms from the POST to the device's sampleStarted, after sampleFinished. */
async function sampleOnce(ingestion, remote, deviceId, body) {
  const from = remote.messages.length;
  const t0 = performance.now();
  const res = await fetch(`${ingestion.managementUrl}/api/1/device/${encodeURIComponent(deviceId)}/start-sampling`, {
    method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (!answer.success) throw new Error(`start-sampling refused: ${answer.error}`);
  const mine = (m) => m.deviceId === deviceId && m.dir === 'in' && remote.messages.indexOf(m) >= from;
  const started = await remote.waitFor((m) => mine(m) && m.message.sampleStarted === true, 10_000);
  const end = await remote.waitFor((m) => mine(m) && (m.message.sampleFinished === true || m.message.sample === false), 30_000);
  if (end.message.sample === false) throw new Error(`sample failed: ${end.message.error}`);
  return started.at - t0;
}

export async function run() {
  const n = Number(process.env.CAPTURE_DESK_BENCH_REMOTE_REQUESTS ?? 20);
  const mods = await bundleEmulators();
  const ingestion = await mods.ingestion.startIngestionServer({ apiKeys: [API_KEY], projectId: 1 });
  const remote = await mods.remote.startRemoteManagement({ ingestion });
  const ownPulse = process.env.PULSE_SERVER ? null : await startPulse({ sink: 'benchremote' });
  const sink = ownPulse ? { sink: ownPulse.sink, env: ownPulse.env, unload: async () => {} } : await privateSink({ PULSE_SERVER: process.env.PULSE_SERVER });
  const tone = playTone({ env: sink.env, sink: sink.sink, tones: [{ freq: 440, amp: 0.3 }] });
  const pty = await mods.pty.openPtyPair();
  const board = spawn(process.execPath, [BOARD, '--port', pty.boardPath, '--rate', '100', '--axes', '3'], { stdio: 'ignore' });
  const dataDir = await mkdtemp(join(tmpdir(), 'capture-desk-bench-remote-data-'));
  const rows = [];
  let connect = null;
  try {
    connect = await startConnect([
      '--port', pty.hostPath, '--microphone', '--remote-mgmt-url', remote.url, '--ingestion-url', ingestion.url,
      '--management-url', ingestion.managementUrl, '--project-id', '1', '--api-key', API_KEY, '--data-dir', dataDir,
    ], sink.env, 2);
    const boardDev = connect.devices.find((d) => d.sensors.some((s) => s.name.startsWith('Sensor with')));
    const micDev = connect.devices.find((d) => d.sensors.some((s) => s.name === 'Microphone'));
    if (!boardDev || !micDev) throw new Error(`expected a board and a microphone, got ${JSON.stringify(connect.devices)}`);
    for (const [what, dev, sensor, interval] of [['numeric board', boardDev, boardDev.sensors[0], 10], ['microphone', micDev, micDev.sensors[0], 1000 / 16000]]) {
      const times = [];
      for (let i = 0; i < n; i++) {
        times.push(await sampleOnce(ingestion, remote, dev.device_id, { label: `lat${i}`, lengthMs: 600, category: 'training', intervalMs: interval, sensor: sensor.name }));
      }
      const med = median(times);
      rows.push({
        name: `remote: start-sampling POST → sampleStarted, ${what} (median of ${n})`, value: Math.round(med * 10) / 10, unit: 'ms', target: '< 100 ms', pass: med < 100,
        detail: `min ${Math.min(...times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
      });
    }
    // 50 back to back on the board: each asked for as soon as the previous one is finished.
    const before = ingestion.samples.length;
    const t0 = performance.now();
    for (let i = 0; i < BACK_TO_BACK; i++) {
      await sampleOnce(ingestion, remote, boardDev.device_id, { label: 'burst', lengthMs: 600, category: 'testing', intervalMs: 10, sensor: boardDev.sensors[0].name });
    }
    const seconds = (performance.now() - t0) / 1000;
    const stored = ingestion.samples.slice(before).filter((s) => s.label === 'burst');
    const distinct = new Set(stored.map((s) => s.sha256)).size;
    await stop(connect.child);
    const list = spawn(process.execPath, [CLI, 'samples', 'list', '--json', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    list.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    await new Promise((r) => list.once('exit', r));
    const local = out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((s) => s.label === 'burst');
    const localUploaded = local.filter((s) => s.state === 'uploaded').length;
    const ok = stored.length === BACK_TO_BACK && distinct === BACK_TO_BACK && local.length === BACK_TO_BACK && localUploaded === BACK_TO_BACK;
    rows.push({
      name: `remote: ${BACK_TO_BACK} back-to-back requests on one device, stored on the platform once each`, value: `${stored.length} (${distinct} distinct)`, unit: 'samples', target: `${BACK_TO_BACK}, each once`, pass: ok,
      detail: `local: ${local.length} samples, ${localUploaded} uploaded; ${(seconds / BACK_TO_BACK * 1000).toFixed(0)} ms per 600 ms request end to end`,
    });
  } finally {
    if (connect) await stop(connect.child);
    board.kill('SIGTERM');
    await pty.close();
    await tone.stop();
    await sink.unload();
    await ownPulse?.stop();
    await remote.close();
    await ingestion.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(mods.dir, { recursive: true, force: true });
  }
  return rows;
}
