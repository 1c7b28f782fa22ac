import { describe, expect, it } from 'vitest';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { socatAvailable } from '../support/boards/pty.js';
import { useCleanups } from '../support/cleanups.js';
import { lineBoard, listSamples, startConnect, startPlatform, type ConnectEvent, type Platform } from '../support/connect-run.js';

/**
 * The connection's life under `capture-desk connect`: the platform drops it, goes away and comes
 * back on the same port, drops it in the middle of a take; and `connect` itself killed mid-take.
 */
const cleanups = useCleanups();

const kinds = (events: ConnectEvent[]) => events.map((e) => e.event);

/** The platform, a 100 Hz board, and `connect` serving it as `deviceId`, once it said it is connected. */
async function connected(deviceId: string) {
  const p = await startPlatform(cleanups);
  const b = await lineBoard(cleanups);
  const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', deviceId]);
  await c.waitEvent((e) => e.event === 'connected');
  return { p, b, c };
}

/** The platform asks `deviceId` for a take; resolves once the device says it started sampling. */
async function takeStarted(p: Platform, deviceId: string, label: string, lengthMs: number) {
  expect(await p.startSampling(deviceId, { label, lengthMs })).toMatchObject({ success: true });
  await p.remote.waitFor((m) => m.message.sampleStarted === true);
}

// Each test runs real processes end to end; a loaded machine (npm test runs files in parallel) needs the room.
describe.skipIf(!socatAvailable())('capture-desk connect: reconnecting', { timeout: 45_000 }, () => {
  it('after the platform drops the socket, and after it goes away and comes back on the same port: reconnects with a new hello each time (1 s, then doubling), sampling works again', async () => {
    const { p, c } = await connected('bench-dropped');
    expect(p.remote.hellos).toBe(1);

    let from = c.events.length;
    p.remote.drop('bench-dropped');
    expect(await c.waitEvent((e) => e.event === 'disconnected', 5000, from)).toMatchObject({ device_id: 'bench-dropped', reason: expect.any(String) });
    expect(await c.waitEvent((e) => e.event === 'reconnecting', 5000, from)).toEqual({ event: 'reconnecting', device_id: 'bench-dropped', in_ms: 1000 });
    await c.waitEvent((e) => e.event === 'connected', 5000, from);
    expect(kinds(c.events.slice(from))).toEqual(['disconnected', 'reconnecting', 'connected']);
    expect(p.remote.hellos).toBe(2);
    expect(c.stderr()).toMatch(/reconnecting in 1 s/);
    expect(await p.startSampling('bench-dropped', { label: 'again', lengthMs: 500 })).toMatchObject({ success: true });
    await c.waitEvent((e) => e.event === 'sample-finished', 10_000, from);

    // Down for 2.5 s: the 1 s retry finds nothing listening, the next waits 2 s (and so on, doubling).
    from = c.events.length;
    await p.restartRemote(2500);
    await c.waitEvent((e) => e.event === 'connected', 15_000, from);
    const after = c.events.slice(from);
    expect(after[0]).toMatchObject({ event: 'disconnected', device_id: 'bench-dropped' });
    const waits = after.filter((e) => e.event === 'reconnecting').map((e) => e.in_ms as number);
    expect(waits.slice(0, 2)).toEqual([1000, 2000]);
    expect(waits).toEqual(waits.map((_, i) => 1000 * 2 ** i));
    expect(after.at(-1)!.event).toBe('connected');
    expect(p.remote.connected().map((d) => d.deviceId)).toEqual(['bench-dropped']);
    expect(p.remote.hellos).toBe(1); // the restarted service counts its own
    expect(await p.startSampling('bench-dropped', { label: 'back', lengthMs: 500 })).toMatchObject({ success: true });
    await c.waitEvent((e) => e.event === 'sample-finished', 10_000, from);
    expect(p.ingestion.samples.map((s) => s.label)).toEqual(['again', 'back']);
    expect(await c.stop()).toBe(0);
  });

  it('a take in flight when the connection drops is finished, kept and uploaded exactly once', async () => {
    const { p, c } = await connected('bench-inflight');
    await takeStarted(p, 'bench-inflight', 'through', 2000);
    p.remote.drop('bench-inflight');

    const dropped = c.events.indexOf(await c.waitEvent((e) => e.event === 'disconnected'));
    await c.waitEvent((e) => e.event === 'connected', 5000, dropped);
    await c.waitEvent((e) => e.event === 'sample-finished', 15_000);
    expect(kinds(c.events)).toEqual(expect.arrayContaining(['disconnected', 'reconnecting', 'sample-saved', 'sample-finished']));
    // Exactly one sample on the platform, the whole 2 s of it; one upload request.
    expect(p.ingestion.samples).toHaveLength(1);
    expect(p.ingestion.samples[0]!.label).toBe('through');
    const rows = decodeAcquisition(p.ingestion.samples[0]!.bytes, 'cbor').payload.values.length;
    expect(rows).toBeGreaterThan(180);
    expect(p.ingestion.requests.filter((r) => r.path.startsWith('/api/training/'))).toHaveLength(1);
    // The dropped request's progress went nowhere: the new connection heard no sampleFinished.
    expect(p.remote.messages.filter((m) => m.message.sampleFinished === true)).toHaveLength(0);
    expect(await c.stop()).toBe(0);
    expect(await listSamples(c.dataDir)).toMatchObject([{ label: 'through', state: 'uploaded', incomplete: false }]);
    expect(p.ingestion.samples).toHaveLength(1);
  });

  it('SIGINT mid-take: the take finishes its length and is uploaded, the platform hears sampleFinished, then exit 0', async () => {
    const { p, c } = await connected('bench-stopping');
    await takeStarted(p, 'bench-stopping', 'whole', 2000);
    expect(await c.stop('SIGINT')).toBe(0);
    expect(kinds(c.events)).toEqual(['connected', 'sample-requested', 'sample-saved', 'sample-finished', 'disconnected']);
    expect(p.log('bench-stopping').filter((m) => m.dir === 'in').map((m) => m.type).slice(-2)).toEqual(['sampleUploading', 'sampleFinished']);
    expect(p.ingestion.samples).toHaveLength(1);
    expect(decodeAcquisition(p.ingestion.samples[0]!.bytes, 'cbor').payload.values.length).toBeGreaterThanOrEqual(200);
    expect(await listSamples(c.dataDir)).toMatchObject([{ label: 'whole', state: 'uploaded', incomplete: false }]);
  });

  it('connect killed with -9 mid-take: the next start recovers the recording as an incomplete local sample, never uploaded', async () => {
    const { p, b, c: first } = await connected('bench-killed');
    await takeStarted(p, 'bench-killed', 'cut', 5000);
    await new Promise((r) => setTimeout(r, 1000));
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    const again = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', 'bench-killed'], { dataDir: first.dataDir });
    await again.waitEvent((e) => e.event === 'connected');
    await new Promise((r) => setTimeout(r, 1000)); // the upload queue has had its chance
    expect(await again.stop()).toBe(0);
    const local = await listSamples(first.dataDir);
    expect(local).toHaveLength(1);
    expect(local[0]).toMatchObject({ label: 'cut', state: 'local', incomplete: true });
    expect(local[0]!.rows as number).toBeGreaterThan(50);
    expect(p.ingestion.samples).toHaveLength(0);
  });
});
