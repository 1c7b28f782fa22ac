import { afterEach, describe, expect, it } from 'vitest';
import { socatAvailable } from '../support/boards/pty.js';
import { atBoard, lineBoard, listSamples, startConnect, startPlatform, type Cleanups, type Connect, type Platform } from '../support/connect-run.js';

/**
 * What `capture-desk connect` refuses: a wrong API key (the platform refuses the hello), and
 * sample requests it cannot honour, each answered {sample:false, error} with nothing stored.
 */
const cleanups: Cleanups = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The device's {sample:false} answers, in order. */
const refusals = (p: Platform, deviceId: string) => p.log(deviceId).filter((m) => m.type === 'sample:false').map((m) => m.message.error as string);

/** Nothing was kept for a refused request: no local sample, nothing on the platform. */
async function nothingStored(p: Platform, c: Connect): Promise<void> {
  expect(await c.stop()).toBe(0);
  expect(await listSamples(c.dataDir)).toEqual([]);
  expect(p.ingestion.samples).toEqual([]);
}

// Each test runs real processes end to end; a loaded machine (npm test runs files in parallel) needs the room.
describe.skipIf(!socatAvailable())('capture-desk connect: refusals', { timeout: 45_000 }, () => {
  it('a wrong API key: the platform refuses the hello, connect names the API key and exits 1 without retrying', async () => {
    const p = await startPlatform(cleanups);
    const b = await lineBoard(cleanups);
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath], { keys: false, env: { CAPTURE_DESK_API_KEY: 'ei_wrong_key_0000000000' } });
    expect(await c.exited).toBe(1);
    expect(c.stderr()).toMatch(/the platform refused .*host.*API key/s);
    expect(c.stderr()).toMatch(/Check the project's API key \(--api-key, CAPTURE_DESK_API_KEY or the keychain, for project 1\)/);
    expect(c.stderr()).not.toContain('ei_wrong_key_0000000000');
    expect(p.remote.hellos).toBe(1);
    expect(p.remote.messages.find((m) => m.dir === 'out' && m.message.hello === false)).toBeDefined();
    expect(c.events).toEqual([]);
  });

  it('no API key anywhere: says so before opening anything, exit 1', async () => {
    const p = await startPlatform(cleanups);
    const c = await startConnect(cleanups, p, ['--port', '/dev/null'], { keys: false, env: { CAPTURE_DESK_API_KEY: '' } });
    expect(await c.exited).toBe(1);
    expect(c.stderr()).toMatch(/No API key for project 1/);
    expect(p.remote.hellos).toBe(0);
  });

  it('an unknown sensor and a length over the maximum: refused with the reason, nothing stored', async () => {
    const p = await startPlatform(cleanups);
    const b = await lineBoard(cleanups);
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', 'bench-refuse']);
    const hello = await c.waitEvent((e) => e.event === 'connected');
    const sensor = (hello.sensors as Array<{ name: string; max_sample_length_s: number }>)[0]!;

    expect(await p.startSampling('bench-refuse', { label: 'x', lengthMs: 1000, sensor: 'Gyroscope' })).toEqual({ success: false, error: expect.stringMatching(/no sensor "Gyroscope"; it offers "Sensor with 3 axes/) });
    const tooLong = (sensor.max_sample_length_s + 1) * 1000;
    expect(await p.startSampling('bench-refuse', { label: 'x', lengthMs: tooLong, sensor: sensor.name })).toEqual({ success: false, error: expect.stringMatching(/longer than .* can take here \(at most/) });
    expect(refusals(p, 'bench-refuse')).toHaveLength(2);
    expect(p.log('bench-refuse').filter((m) => m.type === 'sampleStarted')).toEqual([]);
    // Said here too, not only to the platform.
    await c.waitEvent((e) => e.event === 'sample-failed' && /can take here/.test(e.error as string));
    expect(c.events.slice(1).map((e) => e.event)).toEqual(['sample-requested', 'sample-failed', 'sample-requested', 'sample-failed']);
    expect(c.events[1]).toMatchObject({ label: 'x', length_ms: 1000, sensor: 'Gyroscope', path: '/api/training/data' });
    expect(c.stderr()).toMatch(/sample failed: This device has no sensor "Gyroscope"/);
    await nothingStored(p, c);
  });

  it('a second request while the first records: refused as busy; the first is stored once', async () => {
    const p = await startPlatform(cleanups);
    const b = await lineBoard(cleanups);
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', 'bench-busy']);
    await c.waitEvent((e) => e.event === 'connected');
    expect(await p.startSampling('bench-busy', { label: 'first', lengthMs: 1500 })).toMatchObject({ success: true });
    expect(await p.startSampling('bench-busy', { label: 'second', lengthMs: 500 })).toEqual({ success: false, error: expect.stringMatching(/busy with another sample/) });
    await c.waitEvent((e) => e.event === 'sample-finished');
    expect(p.ingestion.samples.map((s) => s.label)).toEqual(['first']);
    expect(await c.stop()).toBe(0);
    expect((await listSamples(c.dataDir)).map((s) => s.label)).toEqual(['first']);
  });

  it('after the board is unplugged: refused with the reason, nothing stored', async () => {
    const p = await startPlatform(cleanups);
    const b = await lineBoard(cleanups);
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--device-id', 'bench-unplugged']);
    await c.waitEvent((e) => e.event === 'connected');
    await b.unplug();
    await new Promise((r) => setTimeout(r, 1500)); // the stream notices the line went away
    const answer = await p.startSampling('bench-unplugged', { label: 'gone', lengthMs: 500 });
    expect(answer).toEqual({ success: false, error: expect.stringMatching(/disconnected.*Plug the board back in, then ask again\./) });
    await nothingStored(p, c);
  });

  it('an official-firmware board unplugged: refused with the reason, nothing stored', async () => {
    const p = await startPlatform(cleanups);
    const b = await atBoard(cleanups);
    const c = await startConnect(cleanups, p, ['--port', b.pty.hostPath, '--mode', 'at']);
    const hello = await c.waitEvent((e) => e.event === 'connected');
    await b.unplug();
    const sensor = (hello.sensors as Array<{ name: string }>)[0]!.name;
    const answer = await p.startSampling(hello.device_id, { label: 'gone', lengthMs: 500, sensor });
    expect(answer).toEqual({ success: false, error: expect.stringMatching(/unplugged\. Plug it back in, then ask again\./) });
    await nothingStored(p, c);
  });
});
