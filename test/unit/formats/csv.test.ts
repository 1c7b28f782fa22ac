import { describe, it, expect } from 'vitest';
import { CoreError } from '../../../src-main/core/errors.js';
import { UNKNOWN_UNITS, decodeCsv, encodeCsv, type SensorSeries } from '../../../src-main/core/samples/formats/csv.js';

const sample: SensorSeries = {
  interval_ms: 16,
  sensors: [{ name: 'accX', units: 'm/s2' }, { name: 'accY', units: 'm/s2' }, { name: 'gyr, z', units: 'deg/s' }],
  values: [[0.1, -9.81, 3], [1e-7, 2, -0.5], [123456.789, 0, 1 / 3]],
};

function csvError(text: string): string {
  try {
    decodeCsv(text);
  } catch (err) {
    expect(err).toBeInstanceOf(CoreError);
    return (err as CoreError).message;
  }
  throw new Error('expected decodeCsv to throw');
}

describe('encodeCsv', () => {
  it('writes the platform wizard default: timestamp in ms from 0, plain sensor names', () => {
    expect(encodeCsv(sample)).toBe(
      'timestamp,accX,accY,"gyr, z"\n'
      + '0,0.1,-9.81,3\n'
      + '16,1e-7,2,-0.5\n'
      + `32,123456.789,0,${1 / 3}\n`,
    );
  });

  it('keeps timestamps free of float noise, and labels sub-millisecond steps as ms', () => {
    const text = encodeCsv({ interval_ms: 0.1, sensors: [{ name: 'a', units: '' }], values: [[1], [2], [3], [4]] });
    expect(text.split('\n').map((l) => l.split(',')[0])).toEqual(['timestamp (ms)', '0', '0.1', '0.2', '0.3', '']);
  });

  it('writes units in the header on request', () => {
    expect(encodeCsv(sample, { withUnits: true }).split('\n')[0]).toBe('timestamp,accX (m/s2),accY (m/s2),"gyr, z (deg/s)"');
  });

  it('refuses ragged or non-finite rows', () => {
    expect(() => encodeCsv({ ...sample, values: [[1, 2]] })).toThrow(/Row 0 must hold 3 finite numbers/);
    expect(() => encodeCsv({ ...sample, values: [[1, 2, Number.NaN]] })).toThrow(CoreError);
  });
});

describe('round trip', () => {
  it('gives back interval, names, units and exact values (with units in the header)', () => {
    expect(decodeCsv(encodeCsv(sample, { withUnits: true }))).toEqual(sample);
  });

  it('without units in the header, units come back as N/A', () => {
    const back = decodeCsv(encodeCsv(sample));
    expect(back.sensors.map((s) => s.units)).toEqual([UNKNOWN_UNITS, UNKNOWN_UNITS, UNKNOWN_UNITS]);
    expect(back.values).toEqual(sample.values);
  });

  it('keeps awkward intervals to the nanosecond', () => {
    const values = Array.from({ length: 50 }, (_, i) => [i]);
    for (const interval of [1000 / 3, 0.0625, 62.5, 1]) {
      const back = decodeCsv(encodeCsv({ interval_ms: interval, sensors: [{ name: 'v', units: 'x' }], values }));
      expect(back.interval_ms).toBeCloseTo(interval, 6);
    }
  });
});

describe('decodeCsv', () => {
  it('detects semicolons and tabs, and reads decimal commas next to semicolons', () => {
    expect(decodeCsv('time;a;b\n0;1,5;2\n10;-3,25;4\n')).toEqual({
      interval_ms: 10, sensors: [{ name: 'a', units: 'N/A' }, { name: 'b', units: 'N/A' }], values: [[1.5, 2], [-3.25, 4]],
    });
    expect(decodeCsv('t\tx [g]\r\n0\t1\r\n20\t2\r\n').sensors).toEqual([{ name: 'x', units: 'g' }]);
  });

  it('finds the timestamp column anywhere and in any case, and keeps the sensor order', () => {
    const s = decodeCsv('\uFEFFaccX,Timestamp,accY\n1,100,2\n3,110,4\n\n');
    expect(s.interval_ms).toBe(10);
    expect(s.sensors.map((x) => x.name)).toEqual(['accX', 'accY']);
    expect(s.values).toEqual([[1, 2], [3, 4]]);
  });

  it('uses the median step, so one late sample does not change the interval', () => {
    expect(decodeCsv('timestamp,a\n0,1\n10,1\n20,1\n45,1\n55,1\n').interval_ms).toBe(10);
  });

  it('converts seconds: by header units, or when the step is a fraction below 1', () => {
    expect(decodeCsv('timestamp,a\n0,1\n0.01,2\n0.02,3\n').interval_ms).toBe(10);
    expect(decodeCsv('time (s),a\n0,1\n1,2\n2,3\n').interval_ms).toBe(1000);
    expect(decodeCsv('time (ms),a\n0,1\n0.5,2\n1,3\n').interval_ms).toBe(0.5);
    expect(decodeCsv('timestamp [us],a\n0,1\n250,2\n').interval_ms).toBe(0.25);
    expect(decodeCsv('timestamp,a\n1000,1\n1001,2\n').interval_ms).toBe(1); // whole ms stay ms
  });

  it('handles quoted header cells with delimiters and quotes inside', () => {
    const s = decodeCsv('timestamp,"a,b (m)","say ""hi"""\n0,1,2\n5,3,4\n');
    expect(s.sensors).toEqual([{ name: 'a,b', units: 'm' }, { name: 'say "hi"', units: 'N/A' }]);
  });

  it('names the line and column of each problem', () => {
    expect(csvError('')).toMatch(/file is empty/);
    expect(csvError('timestamp\n0\n1\n')).toMatch(/has one column/);
    expect(csvError('when,a\n0,1\n1,2\n')).toMatch(/no timestamp column.*timestamp, time or t/);
    expect(csvError('timestamp,a\n0,1\n10,2,3\n')).toMatch(/line 3 has 3 columns but the header has 2/);
    expect(csvError('timestamp,a,b\n0,1,2\n10,1,abc\n')).toMatch(/line 3, column "b": "abc" is not a number/);
    expect(csvError('timestamp,a\n0,1\n10,\n')).toMatch(/line 3, column "a": "" is not a number/);
    expect(csvError('timestamp,a\n0,1\n0x10,1\n')).toMatch(/line 3, column "timestamp"/);
    expect(csvError('timestamp,a\n0,1\n10,1\n10,1\n')).toMatch(/line 4: timestamp 10 is not after the previous one \(10\)/);
    expect(csvError('timestamp,a\n0,1\n10,1\n5,1\n')).toMatch(/line 4: .*timestamps must increase/);
    expect(csvError('timestamp,a\n0,1\n')).toMatch(/found 1 data rows; at least 2/);
    expect(csvError('timestamp,a,a\n0,1,2\n1,1,2\n')).toMatch(/"a" twice/);
    expect(csvError('timestamp,a,\n0,1,2\n1,1,2\n')).toMatch(/column 3 of the header has no name/);
    expect(csvError('time (min),a\n0,1\n1,1\n')).toMatch(/timestamp units "min" are not known/);
    expect(csvError('timestamp,a\n0,"1\n1,2\n')).toMatch(/line 2: a quoted cell is not closed/);
    expect(csvError('timestamp,a\n0,1\n1,NaN\n')).toMatch(/"NaN" is not a number/);
    // What the quick reading of plain rows must refuse as the careful one does.
    for (const cell of ['1 2', 'Infinity', '-Infinity', '1e', '+-1', '.', '-', 'e5', '1.2.3', '1_000', '0b1']) {
      expect(csvError(`timestamp,a\n0,1\n10,${cell}\n`), cell).toMatch(/line 3, column "a": .* is not a number/);
    }
    expect(csvError('timestamp;a\n0;1\n10;1,5,2\n')).toMatch(/line 3, column "a": "1,5,2" is not a number/);
  });

  it('reads plain numbers as the careful path does: blanks around, signs, exponents, leading dots', () => {
    const text = 'timestamp,a,b\n0, 1.5 ,-2\n10,\t+.5,1e3\n20,1.,-0.25E-2\n';
    expect(decodeCsv(text)).toEqual({ interval_ms: 10, sensors: [{ name: 'a', units: 'N/A' }, { name: 'b', units: 'N/A' }], values: [[1.5, -2], [0.5, 1000], [1, -0.0025]] });
    expect(decodeCsv('t;a\n0;1,5\n10;2\n').values).toEqual([[1.5], [2]]);
  });

  it('counts line numbers in the file, blank lines included', () => {
    expect(csvError('\ntimestamp,a\n0,1\n\n10,x\n')).toMatch(/line 5, column "a"/);
  });
});
