import { describe, expect, it } from 'vitest';
import { CoreError } from '../../src-main/core/errors.js';
import { AtCommandError, AtTimeoutError } from '../../src-main/core/serial/at/at-errors.js';
import { AtTransport } from '../../src-main/core/serial/at/at-transport.js';
import { FakeAtPort, flush } from '../support/boards/at-board-fake.js';

const fast = { writePauseMs: 0 };

function setup(reply: (cmd: string) => string | null, opts = fast) {
  const port = new FakeAtPort();
  port.reply = reply;
  return { port, t: new AtTransport(port, opts) };
}

describe('AtTransport.command', () => {
  const answer = 'ID:         5A:1B\nAT Version: 1.3.0\r\n\r\n\x1b[2K\rLabel: idle\r\n';
  const expected = ['ID:         5A:1B', 'AT Version: 1.3.0', 'Label: idle'];

  it('returns the lines before the prompt, echo removed, wherever the answer is cut', async () => {
    const { port, t } = setup(() => null);
    port.echo = false;
    const full = `AT+CONFIG?\r\n${answer}> `;
    for (let cut = 0; cut <= full.length; cut++) {
      const p = t.command('AT+CONFIG?');
      await flush();
      port.emit(full.slice(0, cut));
      port.emit(full.slice(cut));
      await expect(p, `cut at ${cut}`).resolves.toEqual(expected);
    }
  });

  it('works with a board that does not echo', async () => {
    const { port, t } = setup(() => 'OK\n');
    port.echo = false;
    await expect(t.command('AT+MGMTSETTINGS=wss://x')).resolves.toEqual(['OK']);
  });

  it('writes cmd + \\r in 5-byte pieces, the pacing of the official daemon', async () => {
    const { port, t } = setup(() => 'OK\n');
    await t.command('AT+SAMPLESTART=Built-in accelerometer');
    expect(port.writes.map((w) => w.length).slice(0, -1).every((n) => n === 5)).toBe(true);
    expect(port.sent).toBe('AT+SAMPLESTART=Built-in accelerometer\r');
  });

  it('pauses between pieces', async () => {
    const { t } = setup(() => 'OK\n', { writePauseMs: 15 });
    const started = Date.now();
    await t.command('AT+ABCDEFGHIJ'); // 14 bytes with \r: 3 pieces, 2 pauses
    expect(Date.now() - started).toBeGreaterThanOrEqual(28);
  });

  it('ignores a stale prompt that arrives before the board answered this command', async () => {
    const { port, t } = setup(() => null);
    port.echo = false;
    const p = t.command('AT+CONFIG?');
    await flush();
    port.emit('> ');
    port.emit('> AT+CONFIG?\r\nID: x\r\n');
    await flush();
    let done = false;
    void p.then(() => (done = true));
    await flush();
    expect(done).toBe(false);
    port.emit('> ');
    await expect(p).resolves.toEqual(['ID: x']);
  });

  it('leaves out what came before its echo: the late answer to the command before, with its prompt', async () => {
    const { port, t } = setup(() => null);
    port.echo = false;
    const p = t.command('AT+CONFIG?');
    await flush();
    // The answer to a 'b' sent before, late on a loaded host, then ours.
    port.emit('b\r\nNot a valid AT command (b)\n');
    port.emit('AT+CONFIG?\r\nID: x\r\n> ');
    await expect(p).resolves.toEqual(['ID: x']);
  });

  it('passes lines to onLine as they arrive, without the echo', async () => {
    const { port, t } = setup(() => null);
    const seen: string[] = [];
    const p = t.command('AT+SAMPLESTART=mic', { onLine: (l) => seen.push(l) });
    await flush();
    port.emit('\r\nSampling...\n');
    await flush();
    expect(seen).toEqual(['Sampling...']);
    port.emit('Done sampling\nOK\n> ');
    await expect(p).resolves.toEqual(['Sampling...', 'Done sampling', 'OK']);
  });

  it('fails with what onLine threw', async () => {
    const { t } = setup(() => 'a line\n');
    await expect(t.command('AT+X', { onLine: () => { throw new Error('listener broke'); } })).rejects.toThrow('listener broke');
  });

  it('turns ERR: lines into AtCommandError with secrets masked', async () => {
    const key = 'super-secret-hmac';
    const { t } = setup(() => `Sampling settings:\n\tHMAC Key: ${key}\nERR: Failed to start sampling (key ${key})\n`);
    const err = await t.command('AT+SAMPLESTART=mic', { secrets: [key] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AtCommandError);
    expect(err).toBeInstanceOf(CoreError);
    expect(err).toMatchObject({ kind: 'device-error', command: 'AT+SAMPLESTART', code: 'Unavailable' });
    expect((err as AtCommandError).deviceText).toBe('ERR: Failed to start sampling (key «redacted»)');
    expect(JSON.stringify({ ...(err as object), message: (err as Error).message })).not.toContain(key);
  });

  it.each([
    'Not a valid AT command (AT+NOPE=1)',
    'Command not found! (AT+NOPE)',
    'No handler for AT command (AT+NOPE=1)',
    'No handler for command! (AT+NOPE=1)',
  ])('reports "%s" as an unknown command', async (line) => {
    const { t } = setup(() => `${line}\n`);
    await expect(t.command('AT+NOPE=1')).rejects.toMatchObject({ kind: 'unknown-command', command: 'AT+NOPE', deviceText: line });
  });

  it('never puts a command\'s arguments in errors, even when the board repeats them', async () => {
    const { t } = setup((cmd) => `Not a valid AT command (${cmd})\n`);
    const err = await t.command('AT+UPLOADSETTINGS=ei_key123,/api/training/data', { secrets: ['ei_key123'] })
      .then(() => new Error('resolved'), (e: Error) => e);
    expect(err.message).not.toContain('ei_key123');
    expect(err.message).toContain('AT+UPLOADSETTINGS');
  });

  it('times out with a typed error naming the command, then works again', async () => {
    const { port, t } = setup(() => null);
    const err = await t.command('AT+SAMPLESETTINGS=idle,16,1000,k3y', { timeoutMs: 40 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AtTimeoutError);
    expect(err).toMatchObject({ code: 'Unavailable', command: 'AT+SAMPLESETTINGS' });
    expect((err as Error).message).not.toContain('k3y');
    port.reply = () => 'OK\n';
    await expect(t.command('AT+CONFIG?')).resolves.toEqual(['OK']);
  });

  it('runs one command at a time', async () => {
    const { port, t } = setup(() => null);
    const first = t.command('AT+FIRST');
    const second = t.command('AT+SECOND');
    await flush();
    expect(port.commands).toEqual(['AT+FIRST']);
    port.emit('\r\none\n> ');
    await expect(first).resolves.toEqual(['one']);
    await flush();
    expect(port.commands).toEqual(['AT+FIRST', 'AT+SECOND']);
    port.emit('\r\ntwo\n> ');
    await expect(second).resolves.toEqual(['two']);
  });

  it('keeps going after a failed command in the queue', async () => {
    const { port, t } = setup((cmd) => (cmd === 'AT+BAD' ? 'ERR: nope\n' : 'fine\n'));
    const results = await Promise.allSettled([t.command('AT+BAD'), t.command('AT+GOOD')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(port.commands).toEqual(['AT+BAD', 'AT+GOOD']);
  });

  it('fails a command in flight and every later one with Disconnected when the port closes', async () => {
    const { port, t } = setup(() => null);
    const p = t.command('AT+SAMPLESTART=mic', { timeoutMs: 10_000 });
    await flush();
    port.drop(true);
    await expect(p).rejects.toMatchObject({ code: 'Disconnected', details: { disconnected: true } });
    await expect(t.command('AT+CONFIG?')).rejects.toMatchObject({ code: 'Disconnected' });
  });

  it('reports a failed write as Disconnected', async () => {
    const { port, t } = setup(() => 'OK\n');
    port.failWrites = true;
    await expect(t.command('AT+CONFIG?')).rejects.toMatchObject({ code: 'Disconnected' });
  });

  it('close() unsubscribes and fails what is pending', async () => {
    const { port, t } = setup(() => null);
    const p = t.command('AT+X');
    t.close();
    await expect(p).rejects.toMatchObject({ code: 'Disconnected' });
    expect(port.listeners).toBe(0);
  });
});

describe('AtTransport.sync', () => {
  it('sends b, waits for the prompt and swallows what a stopped inference prints after it', async () => {
    const { port, t } = setup((cmd) => (cmd === 'b' ? null : 'ID: 1\n'));
    port.echo = false;
    const p = t.sync({ settleMs: 40 });
    await flush();
    expect(port.sent).toBe('b\r');
    port.emit('Predictions: idle 0.9\r\nInferencing stopped by user\r\n> ');
    await new Promise((r) => setTimeout(r, 15));
    port.emit('\r\nNot a valid AT command ()\n> ');
    await p;
    await expect(t.command('AT+CONFIG?')).resolves.toEqual(['ID: 1']);
  });

  it("does not take a boot banner's prompt for the answer to its b: waits for the echo, so the next command gets its own answer", async () => {
    const { port, t } = setup((cmd) => (cmd === 'b' ? null : 'ID: 1\n'));
    port.echo = false;
    let synced = false;
    const p = t.sync({ settleMs: 20 }).then(() => (synced = true));
    await flush();
    port.emit('Hello from the board.\r\n> ');
    // The board answers 'b' only after the settle time has passed (a loaded host).
    await new Promise((r) => setTimeout(r, 80));
    expect(synced).toBe(false);
    port.emit('b\r\nNot a valid AT command (b)\n> ');
    await p;
    await expect(t.command('AT+CONFIG?')).resolves.toEqual(['ID: 1']);
  });

  it('times out when nothing answers', async () => {
    const { t } = setup(() => null);
    await expect(t.sync({ timeoutMs: 30 })).rejects.toBeInstanceOf(AtTimeoutError);
  });
});

describe('AtTransport.commandAtBaud', () => {
  it('switches after the first OK, back after the second, then waits for the prompt', async () => {
    const { port, t } = setup(() => null);
    const p = t.commandAtBaud('AT+READBUFFER=0,3,y', 921600);
    await flush();
    port.emit('\r\nOK\r\n');
    await flush();
    expect(port.bauds).toEqual([921600]);
    port.emit('QUJD\r\nOK\r\n');
    await flush();
    expect(port.bauds).toEqual([921600, 115200]);
    port.emit('\r\n> ');
    await expect(p).resolves.toEqual(['OK', 'QUJD', 'OK']);
  });

  it('does not switch when the board refuses at the AT rate', async () => {
    const { port, t } = setup(() => 'Not a valid AT command (AT+READBUFFER=0,3,y)\n');
    await expect(t.commandAtBaud('AT+READBUFFER=0,3,y', 921600)).rejects.toMatchObject({ kind: 'unknown-command' });
    expect(port.bauds).toEqual([]);
  });

  it('goes back to the AT rate when the transfer times out', async () => {
    const { port, t } = setup(() => null);
    const p = t.commandAtBaud('AT+READFILE=/fs/a,y', 921600, { timeoutMs: 60 });
    await flush();
    port.emit('\r\nOK\r\nQUJD');
    await expect(p).rejects.toBeInstanceOf(AtTimeoutError);
    expect(port.bauds).toEqual([921600, 115200]);
  });
});
