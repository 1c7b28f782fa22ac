import { describe, it, expect } from 'vitest';
import type { BadLineReason } from '../../../src-main/core/serial/lines/bad-lines.js';
import { LineScanner } from '../../../src-main/core/serial/lines/line-scanner.js';
import { NumericLineParser, type RowSink } from '../../../src-main/core/serial/lines/numeric-line-parser.js';

function collect(): RowSink & { rows: number[][]; bad: BadLineReason[] } {
  const rows: number[][] = [];
  const bad: BadLineReason[] = [];
  return {
    rows,
    bad,
    row: (values, width) => void rows.push(Array.from(values.subarray(0, width))),
    rejected: (reason) => void bad.push(reason),
  };
}

/** Feeds lines (strings or raw bytes) to a parser; the first is handed over as a possibly cut first line if asked. */
function feed(lines: Array<string | Buffer>, opts: { first?: boolean; parser?: NumericLineParser } = {}) {
  const parser = opts.parser ?? new NumericLineParser();
  const sink = collect();
  const outcomes = lines.map((l, i) => {
    // Pad with bytes on both sides so the parser has to honour start/end.
    const body = typeof l === 'string' ? Buffer.from(l, 'utf8') : l;
    const buf = Buffer.concat([Buffer.from('##'), body, Buffer.from('##')]);
    return i === 0 && opts.first ? parser.firstLine(buf, 2, 2 + body.length, sink) : parser.parse(buf, 2, 2 + body.length, sink);
  });
  return { parser, sink, outcomes, stats: parser.stats };
}

function scan(line: string | Buffer) {
  const s = new LineScanner(8);
  const buf = typeof line === 'string' ? Buffer.from(line) : line;
  const kind = s.scan(buf, 0, buf.length);
  return { kind, values: Array.from(s.values.subarray(0, s.count)) };
}

describe('LineScanner: fields', () => {
  it.each([
    ['1,2,3', [1, 2, 3]],
    ['1\t2\t3', [1, 2, 3]],
    ['1 2   3', [1, 2, 3]],
    ['1, 2, 3', [1, 2, 3]],
    ['  1 ,2 ,  3  ', [1, 2, 3]],
    ['1 \t 2\t3', [1, 2, 3]],
    ['1,2,3,', [1, 2, 3]],
    ['1\t2\t3\t', [1, 2, 3]],
    ['-0.123,4.567,9.81', [-0.123, 4.567, 9.81]],
    ['+5,.5,5.,-.25', [5, 0.5, 5, -0.25]],
    ['1e3,-2.5E-2,3e+1', [1000, -0.025, 30]],
    ['0.1,0.2,0.3', [0.1, 0.2, 0.3]],
    ['123456789012345678901,0.000000000000000000001234', [123456789012345678901, 1.234e-21]],
    ['1.7976931348623157e308', [1.7976931348623157e308]],
  ])('%j → %j', (line, values) => {
    expect(scan(line)).toEqual({ kind: 'values', values });
  });

  it('parses numbers exactly as Number() does', () => {
    let seed = 1;
    const rnd = () => ((seed = (Math.imul(seed, 48271) >>> 0) % 2147483647) / 2147483647);
    for (let i = 0; i < 5000; i++) {
      const v = (rnd() - 0.5) * 10 ** Math.floor(rnd() * 12 - 4);
      const text = [v.toFixed(Math.floor(rnd() * 8)), v.toPrecision(1 + Math.floor(rnd() * 16)), String(v)];
      expect(scan(text.join(',')).values).toEqual(text.map(Number));
    }
  });

  it.each([
    ['blank', '', 'blank'],
    ['spaces only', '   ', 'blank'],
    ['NaN', '1,nan,3', 'nan'],
    ['NaN any case', '1,NaN,3', 'nan'],
    ['-inf', '1,-inf,3', 'nan'],
    ['Infinity', 'Infinity 2', 'nan'],
    ["Arduino's ovf", '1 ovf', 'nan'],
    ['overflowing exponent', '1,1e999', 'nan'],
    ['empty field', '1,,3', 'nan'],
    ['empty field (tabs)', '1\t\t3', 'nan'],
    ['empty field (comma then tab)', '1,\t3', 'nan'],
    ['leading comma', ',1,2', 'nan'],
    ['text', 'Sensor ready.', 'names'], // a header, until the data disagrees
    ['text with numbers', 'Temp 23.5 C', 'text'],
    ['malformed number', '1.2.3,4', 'text'],
    ['number with a unit', '12ms,4', 'text'],
    ['dangling exponent', '1e,2', 'text'],
    ['control bytes', '1,2\x00,3', 'garbage'],
    ['a stray \\r mid-line', '1,2\r3', 'garbage'],
    ['DEL', '\x7f1,2', 'garbage'],
    ['too many fields', '1,2,3,4,5,6,7,8,9', 'width'],
  ])('%s → %s', (_what, line, kind) => {
    expect(scan(line).kind).toBe(kind);
  });

  it('calls invalid UTF-8 garbage (a wrong baud rate) but accepts UTF-8 names', () => {
    expect(scan(Buffer.from([0x31, 0x2c, 0xff, 0xfe, 0x2c, 0x33])).kind).toBe('garbage');
    expect(scan(Buffer.from([0xe0, 0x80, 0x0a])).kind).toBe('garbage');
    expect(scan('température,humidité').kind).toBe('names');
    expect(scan('1.2°,3').kind).toBe('text');
  });

  it('reads name:value pairs with comma or space separators and a space after the colon', () => {
    for (const line of ['accX:1.2,accY:3.4', 'accX:1.2 accY:3.4', 'accX: 1.2, accY: 3.4', 'accX:1.2\taccY:3.4\t']) {
      expect(scan(line), line).toEqual({ kind: 'pairs', values: [1.2, 3.4] });
    }
    // A sketch's printf("ax=%f ay=%f\n"): was rejected as text ("none were numbers").
    for (const line of ['accX=1.2 accY=3.4', 'accX=1.2,accY=3.4', 'accX= 1.2 accY= 3.4']) {
      expect(scan(line), line).toEqual({ kind: 'pairs', values: [1.2, 3.4] });
    }
    expect(scan('a=b=1').kind).toBe('text');
    expect(scan('accX:nan,accY:1').kind).toBe('nan');
    expect(scan('accX:,accY:1').kind).toBe('nan');
    expect(scan('accX:abc').kind).toBe('text');
    expect(scan('accX:1,2').kind).toBe('text'); // pairs and bare values mixed
    expect(scan(':1').kind).toBe('text');
  });
});

describe('NumericLineParser: width', () => {
  it('settles the width after three consistent lines and then rejects other widths', () => {
    const { sink, outcomes, stats } = feed(['1,2,3', '4,5,6', '7,8,9', '1,2', '1,2,3,4', '10,11,12']);
    expect(outcomes).toEqual(['held', 'held', 'row', 'width', 'width', 'row']);
    expect(sink.rows).toEqual([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]]);
    expect(sink.bad).toEqual(['width', 'width']);
    expect(stats).toMatchObject({ width: 3, layout: 'values', goodLines: 4, badTotal: 2, badLines: { width: 2 } });
    expect(stats.lastBadLine).toEqual({ reason: 'width', text: '1,2,3,4' });
  });

  it('rejects held lines that the settled width disagrees with, never passing them on', () => {
    const { sink, stats } = feed(['1,2', '1,2,3', '4,5,6', '7,8,9']);
    expect(sink.rows).toEqual([[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
    expect(sink.bad).toEqual(['width']);
    expect(stats.lastBadLine).toEqual({ reason: 'width', text: '1,2' });
  });

  it('counts bad lines by reason and keeps the last one as printable text', () => {
    const lines = ['1,2,3', '4,5,6', '7,8,9', 'nan,1,2', 'Sensor error!', Buffer.from('\x001,\xff2,3', 'latin1'), '1,,3'];
    const { sink, stats } = feed(lines);
    expect(sink.rows).toHaveLength(3);
    expect(stats.badLines).toEqual({ text: 1, nan: 2, width: 0, garbage: 1, 'too-long': 0, partial: 0 });
    expect(stats.lastBadLine).toEqual({ reason: 'nan', text: '1,,3' });
    const garbage = feed([Buffer.from('\x001,\xff2', 'latin1')]).stats.lastBadLine;
    expect(garbage).toEqual({ reason: 'garbage', text: '\\x001,\uFFFD2' });
  });

  it('truncates a long bad-line sample for the UI', () => {
    const text = feed(['x'.repeat(500) + ' 1']).stats.lastBadLine!.text;
    expect(text).toHaveLength(81);
    expect(text.endsWith('…')).toBe(true);
  });

  it('ignores blank lines without calling them bad', () => {
    const { sink, stats, outcomes } = feed(['1', '', '2', '  ', '3']);
    expect(outcomes).toEqual(['held', 'blank', 'held', 'blank', 'row']);
    expect(sink.rows).toEqual([[1], [2], [3]]);
    expect(stats).toMatchObject({ blankLines: 2, badTotal: 0 });
  });
});

describe('NumericLineParser: names', () => {
  it('takes a header before the data as axis names and settles the width on the first matching line', () => {
    const { sink, outcomes, stats } = feed(['accX,accY,accZ', '1,2,3', '4,5,6']);
    expect(outcomes).toEqual(['header', 'row', 'row']);
    expect(sink.rows).toEqual([[1, 2, 3], [4, 5, 6]]);
    expect(stats).toMatchObject({ names: ['accX', 'accY', 'accZ'], width: 3, headerLines: 1, badTotal: 0 });
  });

  it('accepts tab-separated headers with a timestamp column', () => {
    expect(feed(['timestamp\taccX\taccY', '10\t1\t2']).stats.names).toEqual(['timestamp', 'accX', 'accY']);
  });

  it('rejects a header (or a debug print) that the data disagrees with', () => {
    const { sink, stats } = feed(['Starting up', '1,2,3', '4,5,6', '7,8,9']);
    expect(sink.rows).toHaveLength(3);
    expect(stats).toMatchObject({ names: null, badLines: { text: 1 } });
    expect(stats.lastBadLine).toEqual({ reason: 'text', text: 'Starting up' });
  });

  it('takes a header after data only if it matches the width', () => {
    const { outcomes, stats } = feed(['1,2', '3,4', '5,6', 'x,y', 'a,b,c']);
    expect(outcomes.slice(3)).toEqual(['header', 'text']);
    expect(stats.names).toEqual(['x', 'y']);
    // A header arriving while lines are held settles the width at once.
    expect(feed(['1,2', 'x,y', '3,4']).outcomes).toEqual(['held', 'header', 'row']);
  });

  it('learns names from name:value pairs and checks later lines against them', () => {
    const { sink, outcomes, stats } = feed(['accX:1,accY:2', 'accX:3 accY:4', 'accX: 5, accY: 6', 'accY:8,accX:7', 'accX:1,gyrX:2', 'accX:1', '1,2']);
    expect(outcomes).toEqual(['held', 'held', 'row', 'row', 'width', 'width', 'width']);
    expect(sink.rows).toEqual([[1, 2], [3, 4], [5, 6], [7, 8]]);
    expect(stats).toMatchObject({ layout: 'pairs', names: ['accX', 'accY'], width: 2 });
    expect(feed(['ax=1 ay=2', 'ax=3 ay=4', 'ax=5 ay=6']).stats).toMatchObject({ layout: 'pairs', names: ['ax', 'ay'], width: 2 });
  });

  it('restarts settling when the pair names change before the width is settled', () => {
    const { sink, stats } = feed(['a:1,b:2', 'x:1,y:2', 'x:3,y:4', 'x:5,y:6']);
    expect(sink.rows).toEqual([[1, 2], [3, 4], [5, 6]]);
    expect(stats).toMatchObject({ names: ['x', 'y'], badLines: { width: 1 } });
  });
});

describe('NumericLineParser: the first line after opening', () => {
  it('drops it as partial, because a cut line can still look like good numbers', () => {
    const { sink, outcomes, stats } = feed(['23,4.567,9.81', '1,2,3', '4,5,6', '7,8,9'], { first: true });
    expect(outcomes[0]).toBe('partial');
    expect(sink.rows).toEqual([[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
    expect(stats.badLines.partial).toBe(1);
  });

  it('believes it if it is a header (a board reset by the open prints its header first)', () => {
    const { stats } = feed(['accX,accY', '1,2'], { first: true });
    expect(stats).toMatchObject({ names: ['accX', 'accY'], badTotal: 0 });
  });

  it('calls a first-line header that the data disagrees with partial (it was cut)', () => {
    const { stats } = feed(['Y,accZ', '1,2,3', '4,5,6', '7,8,9'], { first: true });
    expect(stats).toMatchObject({ names: null, badLines: { partial: 1, text: 0 } });
  });

  it('reset() relearns the width and names but keeps counting', () => {
    const parser = new NumericLineParser({ confirmLines: 1 });
    feed(['1,2', '3,4', 'bad line 5'], { parser });
    parser.reset();
    const { sink, stats } = feed(['a,b,c', '1,2,3'], { parser, first: true });
    expect(sink.rows).toEqual([[1, 2, 3]]);
    expect(stats).toMatchObject({ width: 3, names: ['a', 'b', 'c'], goodLines: 3, badTotal: 1 });
  });
});
