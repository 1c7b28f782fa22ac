import { describe, expect, it } from 'vitest';
import { BaudJudge } from '../../../src-main/core/serial/baud/baud-judge.js';
import { BAUD_ORDER } from '../../../src-main/core/serial/baud/baud-rates.js';
import { boardValue } from '../../support/boards/line-board-values.mjs';
import { frame, sensorData, sessionInfo } from '../../support/boards/nordic-wire.mjs';
import { uartTransform } from '../../support/boards/uart-transform.js';

const judge = (bytes: Buffer, chunk = 7) => {
  const j = new BaudJudge();
  for (let i = 0; i < bytes.length; i += chunk) j.push(bytes.subarray(i, i + chunk));
  return j;
};

/** What a sketch prints: `rows` readings of `axes` values, starting mid-line as a port opened late does. */
function printed(axes: number, rows: number, from = 7): Buffer {
  const lines = Array.from({ length: rows }, (_, i) => Array.from({ length: axes }, (_, a) => boardValue(from + i, a)).join(',') + '\r\n');
  return Buffer.from('.25,-0.5\r\n' + lines.join(''));
}

function nordicStream(frames: number, crc: boolean): Buffer {
  const parts = [frame(sessionInfo({ sid: 7, hz: 100, names: ['ax', 'ay', 'az'] }), { crc })];
  for (let s = 0; s < frames; s++) parts.push(frame(sensorData({ seq: s, ts: s * 10_000, values: [s, -s, 0.5 * s] }), { crc }));
  return Buffer.concat([Buffer.from([0x12, 0x34, 0x56]), ...parts]); // cut mid-frame first
}

describe('BaudJudge: is what this rate read the board\'s data?', () => {
  it('takes whole numeric lines of one width, not the cut first one', () => {
    expect(judge(printed(3, 3)).verdict(true)).toEqual({ verdict: 'text' });
    expect(judge(printed(3, 4)).verdict()).toEqual({ verdict: 'data', protocol: 'lines' });
    expect(judge(Buffer.from('accX:1.5,accY:2\r\n'.repeat(6))).verdict()).toEqual({ verdict: 'data', protocol: 'lines' });
  });

  it('ends lines at a lone \\r as the reader does, and at \\r\\n once', () => {
    // A sketch printing `x + "," + y + "\r"`: its right rate read as one long line until the search's deadline.
    const lone = Buffer.from(printed(3, 4).toString('latin1').replaceAll('\r\n', '\r'), 'latin1');
    expect(judge(lone).verdict()).toEqual({ verdict: 'data', protocol: 'lines' });
    expect(judge(Buffer.from(printed(3, 4).toString('latin1').replaceAll('\r\n', '\r\n\r\n'), 'latin1'), 3).verdict()).toEqual({ verdict: 'data', protocol: 'lines' });
  });

  it('keeps clean text that is not data apart: a header and a boot message are not garbage', () => {
    const j = judge(Buffer.from('\r\nets Jan  8 2013,rst cause:2, boot mode:(3,6)\r\nload 0x4010f000, len 3460, room 16\r\naccX,accY,accZ\r\n'));
    expect(j.verdict(true)).toEqual({ verdict: 'text' });
  });

  it('counts nothing as silent and NULs from framing errors as garbage', () => {
    expect(new BaudJudge().verdict(true)).toEqual({ verdict: 'silent' });
    expect(judge(Buffer.alloc(40)).verdict(true)).toEqual({ verdict: 'garbage' });
  });

  it('takes Nordic frames whose CRC checks, and an AT prompt once asked', () => {
    expect(judge(nordicStream(3, true)).verdict()).toEqual({ verdict: 'data', protocol: 'nordic' });
    const at = new BaudJudge();
    at.push(Buffer.from('garbage\xff before'));
    at.asked();
    at.push(Buffer.from('AT\r\nOK\r\n> '));
    expect(at.verdict()).toEqual({ verdict: 'data', protocol: 'at' });
    const noAsk = judge(Buffer.from('AT\r\n> '));
    expect(noAsk.verdict(true)).toEqual({ verdict: 'text' });
  });

  // The proof: what a real UART reads from a line board or a Nordic board at every other listed
  // rate (framing errors dropped as serialport has it, or NULs) is never taken for data; the
  // board's own rate always is. (A few pairs read as clean bytes without a line, "\t\t" or
  // "NFNF": text, which the prober listens to a little longer and then leaves.)
  it('never takes a UART\'s garbage at a wrong rate for data, and always takes the right rate', () => {
    const boards = [
      { name: '3 axes', bytes: printed(3, 30), protocol: 'lines' },
      { name: '1 axis', bytes: printed(1, 40), protocol: 'lines' },
      { name: '6 axes', bytes: printed(6, 20), protocol: 'lines' },
      { name: 'ints', bytes: Buffer.from(Array.from({ length: 40 }, (_, i) => `${i % 10},${(i * 7) % 10}\n`).join('')), protocol: 'lines' },
      { name: 'lone \\r', bytes: Buffer.from(printed(3, 30).toString('latin1').replaceAll('\r\n', '\r'), 'latin1'), protocol: 'lines' },
      { name: 'nordic', bytes: nordicStream(12, true), protocol: 'nordic' },
    ];
    const jobs = [];
    for (const b of boards) for (const from of BAUD_ORDER) for (const to of BAUD_ORDER) for (const ignpar of [true, false]) jobs.push({ b, from, to, ignpar, data: b.bytes, splitLines: b.protocol === 'lines' });
    const out = uartTransform(jobs);
    const wrong: string[] = [];
    for (const [k, job] of jobs.entries()) {
      const v = judge(out[k]!).verdict(true);
      const ok = job.from === job.to ? v.verdict === 'data' && v.protocol === job.b.protocol : v.verdict !== 'data';
      if (!ok) wrong.push(`${job.b.name} at ${job.from} read at ${job.to}${job.ignpar ? ' (IGNPAR)' : ''}: ${JSON.stringify(v)} from ${JSON.stringify(out[k]!.toString('latin1').slice(0, 40))}`);
    }
    expect(wrong).toEqual([]);
  });
});
