import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src-main/core/log.js';
import type { ByteLink, SerialOpener } from '../../../src-main/core/serial/byte-link.js';
import { openAtRate } from '../../../src-main/core/serial/baud/open-at-rate.js';

/** A board that prints nothing until it is sent a character (a sketch's while (!Serial.available())). */
function waitingBoard() {
  const written: string[] = [];
  const link: ByteLink = {
    path: '/dev/ttyWAIT',
    onData: () => () => undefined,
    onClose: () => () => undefined,
    write: async (d) => void written.push(String(d)),
    setBaudRate: async () => undefined,
    close: async () => undefined,
  };
  const opener: SerialOpener = { open: async () => link, exists: async () => true };
  return { opener, written };
}

describe('openAtRate on a board that says nothing', () => {
  const deps = (opener: SerialOpener, askAt: boolean) => ({
    opener, log: createLogger(() => undefined), now: () => Date.now(), probe: { quietMs: 20, maxMs: 100, deadlineMs: 2000, atWaitMs: 20, askAt },
  });

  it('not asked (--mode lines): says a sketch may be waiting for input, and how to wake it', async () => {
    const b = waitingBoard();
    // Before: only "Check that the board is running and prints one reading per line".
    await expect(openAtRate(deps(b.opener, false), '/dev/ttyWAIT', { baudRate: 'auto' } as never)).rejects.toThrow(
      /nothing readable arrived at any baud rate .* A sketch that waits for input before it prints stays silent until it gets a character: send one from a serial monitor, or record with --mode auto/,
    );
    expect(b.written).toEqual([]); // and nothing was written to it
  });

  it('asked (--mode auto): the hint is not given, as it was written to already', async () => {
    const b = waitingBoard();
    const err = await openAtRate(deps(b.opener, true), '/dev/ttyWAIT', { baudRate: 'auto' } as never).catch((e: Error) => e);
    expect(String(err)).toMatch(/did not answer AT commands at any of them/);
    expect(String(err)).not.toMatch(/waits for input/);
  });
});
