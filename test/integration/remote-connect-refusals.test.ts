import { afterEach, describe, expect, it } from 'vitest';
import { socatAvailable } from '../support/boards/pty.js';
import { runCli } from '../support/cli.js';
import { lineBoard, listSamples, startConnect, startPlatform, type Cleanups, type Platform } from '../support/connect-run.js';

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

  it('--help prints the usage (exit 0); bad flags are usage errors (exit 2) before anything starts', async () => {
    const help = await runCli(['connect', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: capture-desk connect \[--port PATH\]\.\.\. \[--mode lines\|at\|nordic\]/);
    for (const [args, text] of [
      [[], 'give at least one source'],
      [['--port', '/dev/a', '--port', '/dev/b', '--device-id', 'x'], '--device-id and --name name one device'],
      [['--port', '/dev/a', '--microphone', '--name', 'lab'], '--device-id and --name name one device'],
      [['--port', '/dev/a', '--mode', 'magic'], '--mode must be "lines" or "at"'],
      [['--port', '/dev/a', '--remote-mgmt-url', 'http://x'], '--remote-mgmt-url must be a ws:// or wss:// URL'],
      [['--port', '/dev/a', '--project-id', 'abc'], '--project-id must be a whole number'],
      [['--port', '/dev/a', '--api-key', 'has space'], 'API key given with --api-key contains a space'],
    ] as const) {
      const r = await runCli(['connect', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });

  it('no API key anywhere: says so before opening anything, exit 1', async () => {
    const p = await startPlatform(cleanups);
    const c = await startConnect(cleanups, p, ['--port', '/dev/null'], { keys: false, env: { CAPTURE_DESK_API_KEY: '' } });
    expect(await c.exited).toBe(1);
    expect(c.stderr()).toMatch(/No API key for project 1/);
    expect(p.remote.hellos).toBe(0);
  });

  it('an unknown sensor, a length over the maximum, a request while busy, a board unplugged: each refused with the reason, nothing stored for it', async () => {
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

    // Busy: a second request while the first records; only the first is stored.
    expect(await p.startSampling('bench-refuse', { label: 'first', lengthMs: 1000 })).toMatchObject({ success: true });
    expect(await p.startSampling('bench-refuse', { label: 'second', lengthMs: 500 })).toEqual({ success: false, error: expect.stringMatching(/busy with another sample/) });
    await c.waitEvent((e) => e.event === 'sample-finished');
    expect(p.ingestion.samples.map((s) => s.label)).toEqual(['first']);

    // Unplugged: the board and its port go away.
    await b.unplug();
    await new Promise((r) => setTimeout(r, 1500)); // the stream notices the line went away
    expect(await p.startSampling('bench-refuse', { label: 'gone', lengthMs: 500 })).toEqual({ success: false, error: expect.stringMatching(/disconnected.*Plug the board back in, then ask again\./) });
    expect(refusals(p, 'bench-refuse')).toHaveLength(4);

    expect(await c.stop()).toBe(0);
    expect((await listSamples(c.dataDir)).map((s) => s.label)).toEqual(['first']);
    expect(p.ingestion.samples.map((s) => s.label)).toEqual(['first']);
  });
});
