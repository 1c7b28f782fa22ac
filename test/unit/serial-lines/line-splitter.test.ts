import { describe, it, expect } from 'vitest';
import { LineSplitter, type LineSink } from '../../../src-main/core/serial/lines/line-splitter.js';

type Event = [kind: 'line' | 'first' | 'too-long' | 'tail', text: string];

/** Records what the splitter reports, copying each view (the bytes are only valid during the call). */
function recorder(): { sink: LineSink; events: Event[] } {
  const events: Event[] = [];
  const rec = (kind: Event[0]) => (buf: Buffer, s: number, e: number) => void events.push([kind, buf.toString('latin1', s, e)]);
  return { events, sink: { line: rec('line'), firstLine: rec('first'), tooLong: rec('too-long'), unterminated: rec('tail') } };
}

function splitAll(chunks: Buffer[], options?: ConstructorParameters<typeof LineSplitter>[0]): Event[] {
  const splitter = new LineSplitter(options);
  const { sink, events } = recorder();
  for (const c of chunks) splitter.push(c, sink);
  splitter.finish(sink);
  return events;
}

/** Deterministic PRNG so a failing chunking can be reproduced. */
function prng(seed: number): () => number {
  return () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const STREAM = Buffer.from('9.81\r\n-0.123,4.567,9.81\r\n1,2,3\n\r\n\naccX:1.5 accY:-2\r\nlast,line\n', 'latin1');

describe('LineSplitter', () => {
  it('reports the first line apart, strips \\n and \\r\\n, keeps blank lines', () => {
    expect(splitAll([STREAM])).toEqual([
      ['first', '9.81'],
      ['line', '-0.123,4.567,9.81'],
      ['line', '1,2,3'],
      ['line', ''],
      ['line', ''],
      ['line', 'accX:1.5 accY:-2'],
      ['line', 'last,line'],
    ]);
  });

  it('gives the same lines when the stream is cut at every byte position', () => {
    const whole = splitAll([STREAM]);
    for (let cut = 0; cut <= STREAM.length; cut++) {
      expect(splitAll([STREAM.subarray(0, cut), STREAM.subarray(cut)]), `cut at ${cut}`).toEqual(whole);
    }
  });

  it('gives the same lines when every pair of cut positions splits it in three', () => {
    const whole = splitAll([STREAM]);
    for (let a = 0; a <= STREAM.length; a++) {
      for (let b = a; b <= STREAM.length; b++) {
        expect(splitAll([STREAM.subarray(0, a), STREAM.subarray(a, b), STREAM.subarray(b)])).toEqual(whole);
      }
    }
  });

  it('gives the same lines one byte at a time and under random chunkings', () => {
    const whole = splitAll([STREAM]);
    expect(splitAll([...STREAM].map((b) => Buffer.from([b])))).toEqual(whole);
    const rnd = prng(7);
    for (let trial = 0; trial < 200; trial++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < STREAM.length; ) {
        const n = Math.floor(rnd() * 12);
        chunks.push(STREAM.subarray(at, at + n));
        at += n;
      }
      expect(splitAll(chunks), `trial ${trial}`).toEqual(whole);
    }
  });

  it('ends a line at a lone \\r too, and counts \\r\\n as one ending even when cut between the two bytes', () => {
    // A sketch ending lines with '\r' alone, and a stray \r before a reading: neither may cost a reading.
    const crStream = Buffer.from('boot\r1,2,3\r4,5,6\r\n\r7,8,9\n\r\r\n10,11,12\r', 'latin1');
    const expected: Event[] = [
      ['first', 'boot'], ['line', '1,2,3'], ['line', '4,5,6'], ['line', ''], ['line', '7,8,9'], ['line', ''], ['line', ''], ['line', '10,11,12'],
    ];
    expect(splitAll([crStream])).toEqual(expected);
    for (let cut = 0; cut <= crStream.length; cut++) {
      expect(splitAll([crStream.subarray(0, cut), crStream.subarray(cut)]), `cut at ${cut}`).toEqual(expected);
    }
    expect(splitAll([...crStream].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  it('keeps a \\r at the end of a chunk pending across empty chunks', () => {
    expect(splitAll([Buffer.from('a\r'), Buffer.alloc(0), Buffer.from('\nb\n')])).toEqual([['first', 'a'], ['line', 'b']]);
  });

  it('hands lines inside one chunk over as views of that chunk, without copying', () => {
    const chunk = Buffer.from('x\nabc\n');
    const splitter = new LineSplitter();
    const seen: Buffer[] = [];
    splitter.push(chunk, { line: (buf) => void seen.push(buf), firstLine() {}, tooLong() {}, unterminated() {} });
    expect(seen[0]).toBe(chunk);
  });

  it('marks no first line when asked not to', () => {
    expect(splitAll([Buffer.from('a\nb\n')], { markFirstLine: false })).toEqual([['line', 'a'], ['line', 'b']]);
  });

  it('reports the unterminated tail when the stream ends, then treats the next line as first again', () => {
    const splitter = new LineSplitter();
    const { sink, events } = recorder();
    splitter.push(Buffer.from('a\nb\nhalf'), sink);
    splitter.finish(sink);
    splitter.push(Buffer.from('x\ny\n'), sink);
    expect(events).toEqual([['first', 'a'], ['line', 'b'], ['tail', 'half'], ['first', 'x'], ['line', 'y']]);
  });

  it('reset() forgets a partial line (port reopened)', () => {
    const splitter = new LineSplitter();
    const { sink, events } = recorder();
    splitter.push(Buffer.from('a\nb\nhal'), sink);
    splitter.reset();
    splitter.push(Buffer.from('new\n1\n'), sink);
    expect(events).toEqual([['first', 'a'], ['line', 'b'], ['first', 'new'], ['line', '1']]);
  });
});

describe('LineSplitter over-long lines', () => {
  const max = 16;
  const long = 'L'.repeat(40);
  const stream = Buffer.from(`first\nok1\n${long}\r\nok2\n${'M'.repeat(17)}\n${'N'.repeat(16)}\r\nok3\n`);
  const expected: Event[] = [
    ['first', 'first'],
    ['line', 'ok1'],
    ['too-long', 'L'.repeat(16)],
    ['line', 'ok2'],
    ['too-long', 'M'.repeat(16)],
    ['line', 'N'.repeat(16)], // exactly the limit, even with its \r cut off into the next chunk
    ['line', 'ok3'],
  ];

  it('drops a line over the limit, reports it once with its head, and resyncs at the next \\n', () => {
    expect(splitAll([stream], { maxLineBytes: max })).toEqual(expected);
  });

  it('does so wherever the stream is cut, in two or in single bytes', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(splitAll([stream.subarray(0, cut), stream.subarray(cut)], { maxLineBytes: max }), `cut at ${cut}`).toEqual(expected);
    }
    expect(splitAll([...stream].map((b) => Buffer.from([b])), { maxLineBytes: max })).toEqual(expected);
  });

  it('holds memory constant through megabytes without a newline (default 64 KiB limit)', () => {
    const splitter = new LineSplitter();
    const { sink, events } = recorder();
    splitter.push(Buffer.from('boot\n'), sink);
    const junk = Buffer.alloc(256 * 1024, 0x41);
    const before = process.memoryUsage().arrayBuffers;
    for (let i = 0; i < 64; i++) splitter.push(junk, sink); // 16 MiB, one line
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * 1024 * 1024);
    splitter.push(Buffer.from('\n1,2\n'), sink);
    expect(events.map(([k, t]) => [k, t.length])).toEqual([['first', 4], ['too-long', 64 * 1024], ['line', 3]]);
  });

  it('counts an over-long first line as too long, not as the first line', () => {
    expect(splitAll([Buffer.from(`${long}\na\n`)], { maxLineBytes: max })).toEqual([['too-long', 'L'.repeat(16)], ['line', 'a']]);
  });

  it('rejects a nonsensical limit with a typed error', () => {
    expect(() => new LineSplitter({ maxLineBytes: 0 })).toThrow(expect.objectContaining({ code: 'InvalidArguments' }));
  });
});
