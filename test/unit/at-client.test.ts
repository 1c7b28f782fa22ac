import { describe, expect, it } from 'vitest';
import { AtClient } from '../../src-main/core/serial/at/at-client.js';
import { AtCommandError } from '../../src-main/core/serial/at/at-errors.js';
import { FakeAtPort } from '../support/boards/at-board-fake.js';

const config = (version: string, baud?: number) =>
  `===== Device info =====\nID:         AA:BB\nType:       FAKE\nAT Version: ${version}\n` +
  (baud ? `Data Transfer Baudrate: ${baud}\n` : '') +
  '\n===== Sensors ======\nName: Built-in accelerometer, Max sample length: 300s, Frequencies: [62.50Hz]\n\n' +
  '===== Sampling parameters =====\nLabel:     idle\nInterval:  16.00 ms.\nLength:    1000 ms.\nHMAC key:  old-key\n';

/** A fake board: `answers` maps a command to its output; the sample buffer is `data`. */
function board(version: string, answers: Record<string, string> = {}, opts: { baud?: number; data?: Buffer; garble?: (cmd: string) => boolean } = {}) {
  const port = new FakeAtPort();
  const data = opts.data ?? Buffer.from([]);
  port.reply = (cmd) => {
    if (cmd === 'b') return 'Not a valid AT command (b)\n';
    if (cmd === 'AT+CONFIG?') return config(version, opts.baud);
    const rb = /^AT\+READBUFFER=(\d+),(\d+)/.exec(cmd);
    // Garbled: three characters lost from the middle (what a flushed input buffer leaves).
    const b64 = (text: string) => (opts.garble?.(cmd) ? text.slice(0, 4) + text.slice(7) : text);
    if (rb) return `${b64(data.subarray(Number(rb[1]), Number(rb[1]) + Number(rb[2])).toString('base64'))}\r\n`;
    return answers[cmd] ?? `Not a valid AT command (${cmd})\n`;
  };
  return port;
}

async function connected(port: FakeAtPort, opts = {}) {
  const client = new AtClient(port, { writePauseMs: 0, ...opts });
  await client.connect();
  return client;
}

describe('AtClient', () => {
  it('connects with b then AT+CONFIG?', async () => {
    const port = board('1.3.0');
    const client = await connected(port);
    expect(port.commands).toEqual(['b', 'AT+CONFIG?']);
    expect(client.config).toMatchObject({ deviceId: 'AA:BB', sampling: { hmacKeySet: true } });
  });

  it('sends the sample settings the way the daemon does, an empty key included', async () => {
    const port = board('1.3.0', { 'AT+SAMPLESETTINGS=wave,0.0625,2000,': 'OK\r\n', 'AT+SAMPLESETTINGS=wave,16,2000,k3y': 'OK\r\n' });
    const client = await connected(port);
    await client.setSampleSettings({ label: 'wave', intervalMs: 1000 / 16000, lengthMs: 2000 });
    expect(client.config!.sampling).toEqual({ label: 'wave', intervalMs: 0.0625, lengthMs: 2000, hmacKeySet: false });
    await client.setSampleSettings({ label: 'wave', intervalMs: 16, lengthMs: 2000, hmacKey: 'k3y' });
    expect(client.config!.sampling.hmacKeySet).toBe(true);
    expect(JSON.stringify(client.config)).not.toContain('k3y');
  });

  it.each([
    [{ label: 'a,b', intervalMs: 16, lengthMs: 1000 }, /comma/],
    [{ label: 'café', intervalMs: 16, lengthMs: 1000 }, /ASCII/],
    [{ label: '', intervalMs: 16, lengthMs: 1000 }, /empty/],
    [{ label: 'a', intervalMs: 0, lengthMs: 1000 }, /interval/],
    [{ label: 'a', intervalMs: 16, lengthMs: 1.5 }, /length/],
    [{ label: 'a', intervalMs: 16, lengthMs: 1000, hmacKey: 'k,1' }, /HMAC key may not contain a comma/],
  ])('refuses %o before sending anything', async (settings, why) => {
    const port = board('1.3.0');
    const client = await connected(port);
    await expect(client.setSampleSettings(settings)).rejects.toMatchObject({ code: 'InvalidArguments', message: expect.stringMatching(why) });
    expect(port.commands).toEqual(['b', 'AT+CONFIG?']);
  });

  it('says when the board does not accept settings, without the key', async () => {
    const port = board('1.3.0', { 'AT+UPLOADSETTINGS=ei_secret,/api/x': 'Failed to persist upload settings (ei_secret) (-2)\n' });
    const client = await connected(port);
    const err = await client.setUploadSettings({ apiKey: 'ei_secret', path: '/api/x' }).then(() => new Error('resolved'), (e: Error) => e);
    expect(err).toMatchObject({ code: 'Unavailable' });
    expect(err.message).toContain('Failed to persist upload settings');
    expect(err.message).not.toContain('ei_secret');
  });

  it('reports progress stages once each and never the lines themselves', async () => {
    const port = board('1.3.0', {
      'AT+SAMPLESTART=Built-in accelerometer': 'Sampling settings:\n\tHMAC Key: old-key\n\tFile name: /fs/idle.0\nSampling...\n' +
        'Done sampling\nTotal samples collected: 62\nUploading... \'/fs/idle.0\' to host/path...\nUploading... done\nOK\n',
    });
    const client = await connected(port);
    const stages: unknown[] = [];
    const result = await client.sample('Built-in accelerometer', { onProgress: (s) => stages.push(s) });
    expect(stages).toEqual(['sampling', 'sampled', 'uploading']);
    expect(result).toEqual({ fileName: '/fs/idle.0', uploadedByDevice: true });
  });

  it('checks the sensor against the board\'s list and needs a connection first', async () => {
    const client = await connected(board('1.3.0'));
    await expect(client.sample('Thermometer')).rejects.toMatchObject({ code: 'InvalidArguments', message: expect.stringContaining('Built-in accelerometer') });
    const fresh = new AtClient(board('1.3.0'), { writePauseMs: 0 });
    await expect(fresh.sample('Built-in accelerometer')).rejects.toMatchObject({ code: 'Unavailable' });
  });

  it('reads the buffer in START,LENGTH chunks and checks each length', async () => {
    const data = Buffer.from('a signed sample of some length', 'latin1');
    const port = board('1.3.0', {}, { data });
    const client = await connected(port, { readChunkBytes: 12 });
    const progress: Array<[number, number | null]> = [];
    const bytes = await client.readBack({ fileName: '/fs/a', uploadedByDevice: false, buffer: { from: 0, to: data.length } }, { onProgress: (r, t) => progress.push([r, t]) });
    expect(bytes.equals(data)).toBe(true);
    expect(port.commands.slice(2)).toEqual(['AT+READBUFFER=0,12', 'AT+READBUFFER=12,12', 'AT+READBUFFER=24,6']);
    expect(progress).toEqual([[0, 30], [12, 30], [24, 30], [30, 30]]);

    // A board that returns less than asked (e.g. one reading "from,to") is caught, not glued together.
    await expect(client.readBack({ fileName: '/fs/a', uploadedByDevice: false, buffer: { from: 0, to: 40 } }))
      .rejects.toMatchObject({ code: 'Unavailable', message: expect.stringContaining('sent 6 bytes for the 12 bytes at 24') });
  });

  it('asks again for a chunk that came through damaged (reading changes nothing on the board), and says how often it tried when it never comes whole', async () => {
    const data = Buffer.from('a signed sample of some length', 'latin1');
    let garbles = 1;
    const once = board('1.3.0', {}, { data, garble: (cmd) => cmd === 'AT+READBUFFER=12,12' && garbles-- > 0 });
    const client = await connected(once, { readChunkBytes: 12 });
    const bytes = await client.readBack({ fileName: '/fs/a', uploadedByDevice: false, buffer: { from: 0, to: data.length } });
    expect(bytes.equals(data)).toBe(true);
    expect(once.commands.slice(2)).toEqual(['AT+READBUFFER=0,12', 'AT+READBUFFER=12,12', 'AT+READBUFFER=12,12', 'AT+READBUFFER=24,6']);

    const always = board('1.3.0', {}, { data, garble: (cmd) => cmd === 'AT+READBUFFER=12,12' });
    const stuck = await connected(always, { readChunkBytes: 12 });
    await expect(stuck.readBack({ fileName: '/fs/a', uploadedByDevice: false, buffer: { from: 0, to: data.length } }))
      .rejects.toMatchObject({ code: 'Unavailable', message: expect.stringMatching(/not base64 while reading the sample buffer.*\(read 3 times\)$/) });
    expect(always.commands.filter((c) => c === 'AT+READBUFFER=12,12')).toHaveLength(3);
  });

  it('adds ,n from AT 1.6 when it will not switch rates, and ,y when it will', async () => {
    const data = Buffer.from('0123456789');
    const slow = board('1.6.0', {}, { data, baud: 115200 });
    const c1 = await connected(slow);
    await c1.readBack({ fileName: '/fs/a', uploadedByDevice: false, buffer: { from: 0, to: 10 } });
    expect(slow.commands.at(-1)).toBe('AT+READBUFFER=0,10,n');

    const off = board('1.6.0', {}, { data, baud: 921600 });
    const c2 = await connected(off, { useTransferBaudRate: false });
    await c2.readBack({ fileName: '/fs/a', uploadedByDevice: false, buffer: { from: 0, to: 10 } });
    expect(off.commands.at(-1)).toBe('AT+READBUFFER=0,10,n');
    expect(off.bauds).toEqual([]);
  });

  it('reads a file in hex before AT 1.2 and maps a missing file to NotFound', async () => {
    const bytes = Buffer.from([0xa1, 0x00, 0xff]);
    const port = board('1.1.0', { 'AT+READFILE=/fs/a.0': `${bytes.toString('hex')}\n`, 'AT+READFILE=/fs/gone': "File '/fs/gone' does not exist\n" });
    const client = await connected(port);
    await expect(client.readBack({ fileName: '/fs/a.0', uploadedByDevice: false })).resolves.toEqual(bytes);
    await expect(client.readBack({ fileName: '/fs/gone', uploadedByDevice: false })).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('unlinks, and types a board that could not', async () => {
    const port = board('1.3.0', { 'AT+UNLINKFILE=/fs/a.0': '\n', 'AT+UNLINKFILE=/fs/b.0': "File '/fs/b.0' could not be unlinked\n" });
    const client = await connected(port);
    await expect(client.unlink('/fs/a.0')).resolves.toBeUndefined();
    const err = client.unlink('/fs/b.0');
    await expect(err).rejects.toBeInstanceOf(AtCommandError);
    await expect(err).rejects.toMatchObject({ kind: 'device-error', command: 'AT+UNLINKFILE' });
  });
});
