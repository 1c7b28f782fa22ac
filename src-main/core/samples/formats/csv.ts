import { CoreError } from '../../errors.js';
import type { AcquisitionSensor } from './acquisition.js';

/**
 * Sensor samples as CSV. Export writes what the platform's CSV wizard accepts by default:
 * `timestamp,<sensor>,...` with the timestamp in ms from 0. Import is lenient about what
 * spreadsheets and other tools produce, and exact about which line and column is wrong.
 */

export interface SensorSeries {
  interval_ms: number;
  sensors: AcquisitionSensor[];
  values: number[][];
}

/** What the platform's own tools put in `units` when nothing says otherwise. */
export const UNKNOWN_UNITS = 'N/A';

export interface CsvExportOptions {
  /** Write `name (units)` headers so units survive a round trip; off by default (plain names). */
  withUnits?: boolean;
}

type Delimiter = ',' | ';' | '\t';

function quoteCell(cell: string, delim: Delimiter): string {
  return cell.includes(delim) || cell.includes('"') || /[\r\n]/.test(cell) || cell !== cell.trim()
    ? `"${cell.replaceAll('"', '""')}"`
    : cell;
}

/** Timestamps to 1 ns: keeps float noise (3 * 0.1 = 0.30000000000000004) out of the file. */
function formatMs(ms: number): string {
  return String(Number(ms.toFixed(6)));
}

export function encodeCsv(sample: SensorSeries, opts: CsvExportOptions = {}): string {
  // A sub-millisecond fractional step reads as seconds on import (see decodeCsv), so say "ms"
  // explicitly then; every other file keeps the plain header the platform's wizard expects.
  const step = sample.interval_ms;
  const tsHeader = step < 1 && !Number.isInteger(step) ? 'timestamp (ms)' : 'timestamp';
  const header = [tsHeader, ...sample.sensors.map((s) => (opts.withUnits ? `${s.name} (${s.units})` : s.name))];
  const lines = [header.map((h) => quoteCell(h, ',')).join(',')];
  sample.values.forEach((row, i) => {
    if (row.length !== sample.sensors.length || !row.every(Number.isFinite)) {
      throw new CoreError('InvalidArguments', `Row ${i} must hold ${sample.sensors.length} finite numbers, one per sensor`);
    }
    lines.push(`${formatMs(i * sample.interval_ms)},${row.map(String).join(',')}`);
  });
  return `${lines.join('\n')}\n`;
}

function fail(message: string): never {
  throw new CoreError('InvalidArguments', `CSV: ${message}`);
}

/** One line into cells, with RFC 4180 quotes ("" inside quotes is one "). */
function splitLine(line: string, delim: Delimiter, lineNo: number): string[] {
  // Most lines quote nothing: split at once (the same cells; a character at a time cost a CSV
  // import of 10,000 small files a few hundred ms).
  if (!line.includes('"')) return line.split(delim).map((cell) => cell.trim());
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell.trim() === '') { quoted = true; cell = ''; } else if (c === delim) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  if (quoted) fail(`line ${lineNo}: a quoted cell is not closed; add the missing '"'`);
  cells.push(cell.trim());
  return cells;
}

function detectDelimiter(header: string): Delimiter {
  const outside = header.replace(/"[^"]*"/g, '');
  const counts = ([',', ';', '\t'] as const).map((d) => [d, outside.split(d).length - 1] as const);
  const best = counts.reduce((a, b) => (b[1] > a[1] ? b : a));
  if (best[1] === 0) {
    fail(`the header "${header}" has one column; a sensor CSV needs a timestamp column and at least one sensor column, separated by commas, semicolons or tabs`);
  }
  return best[0];
}

/** `accX (m/s2)` or `accX [m/s2]` → name and units. */
function parseHeaderCell(cell: string): { name: string; units: string | null } {
  const m = /^(.*?)\s*(?:\(([^()]*)\)|\[([^[\]]*)\])$/.exec(cell);
  if (!m) return { name: cell, units: null };
  return { name: (m[1] ?? '').trim(), units: (m[2] ?? m[3] ?? '').trim() };
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseNumber(cell: string, delim: Delimiter): number | null {
  // Spreadsheets in comma-decimal locales write "1,5" and then separate cells with ';' or tabs.
  const text = delim !== ',' && /^[+-]?\d+,\d+$/.test(cell) ? cell.replace(',', '.') : cell;
  if (!NUMBER.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/**
 * Reads a row of exactly `cols` plain numbers (what NUMBER accepts, with blanks around) into `out`;
 * false for anything else, which the careful path then reads or refuses. Number() of a text made
 * only of digits, '.', 'e', 'E', '+' and '-' accepts exactly what NUMBER does (JavaScript's
 * StrDecimalLiteral without Infinity), and an empty cell is refused here as NUMBER refuses it.
 */
function fastRow(line: string, delim: Delimiter, cols: number, out: number[]): boolean {
  const d = delim.charCodeAt(0);
  let col = 0;
  let start = 0;
  const n = line.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? line.charCodeAt(i) : d;
    if (c !== d) {
      // digits . e E + - and blanks (space, tab when it is not the delimiter)
      if ((c >= 48 && c <= 57) || c === 46 || c === 101 || c === 69 || c === 43 || c === 45 || c === 32 || c === 9) continue;
      return false;
    }
    if (col === cols) return false;
    let a = start;
    let b = i;
    while (a < b && (line.charCodeAt(a) === 32 || line.charCodeAt(a) === 9)) a++;
    while (b > a && (line.charCodeAt(b - 1) === 32 || line.charCodeAt(b - 1) === 9)) b--;
    if (a === b) return false;
    const v = Number(line.slice(a, b)); // NaN for a blank inside ("1 2"), as NUMBER refuses it
    if (!Number.isFinite(v)) return false;
    out[col++] = v;
    start = i + 1;
  }
  return col === cols;
}

const TIME_SCALE: Record<string, number> = { ms: 1, s: 1000, sec: 1000, us: 0.001, 'µs': 0.001 };

export function decodeCsv(text: string): SensorSeries {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // Most files end their lines in \n alone: a plain split, not a regular expression per line.
  const lines = body.includes('\r') ? body.split(/\r\n|\n|\r/) : body.split('\n');
  const headerIndex = lines.findIndex((l) => l.trim() !== '');
  if (headerIndex < 0) fail('the file is empty; it needs a header line such as "timestamp,accX,accY,accZ"');
  const headerLine = lines[headerIndex] as string;
  const delim = detectDelimiter(headerLine);
  const columns = splitLine(headerLine, delim, headerIndex + 1).map(parseHeaderCell);

  const tsCol = columns.findIndex((c) => ['timestamp', 'time', 't'].includes(c.name.toLowerCase()));
  if (tsCol < 0) fail(`no timestamp column in the header "${headerLine}"; name the time column timestamp, time or t (in ms)`);
  const tsUnits = columns[tsCol]?.units?.toLowerCase() ?? null;
  const explicitScale = tsUnits === null ? null : TIME_SCALE[tsUnits];
  if (explicitScale === undefined) fail(`timestamp units "${tsUnits}" are not known; use ms, s or us`);

  const sensorCols = columns.map((c, i) => ({ ...c, i })).filter((c) => c.i !== tsCol);
  const seen = new Set<string>();
  for (const c of sensorCols) {
    if (c.name === '') fail(`column ${c.i + 1} of the header has no name; give every sensor column a name`);
    if (seen.has(c.name)) fail(`the header names the column "${c.name}" twice; sensor names must be unique`);
    seen.add(c.name);
  }

  const times: number[] = [];
  const values: number[][] = [];
  const cols = columns.length;
  const parsed = new Array<number>(cols);
  // Where each sensor's value sits in a row, read once per row instead of through the column objects.
  const sensorAt = Int32Array.from(sensorCols, (c) => c.i);
  const width = sensorAt.length;
  for (let li = headerIndex + 1; li < lines.length; li++) {
    const line = lines[li] as string;
    if (line.trim() === '') continue;
    const lineNo = li + 1;
    // Most rows are plain numbers: read them in one pass, without an array of trimmed cells and a
    // regular expression per cell. Anything else (quotes, comma decimals, a cell that is not a
    // number, a column too many) goes the careful way below, which also says exactly what is wrong.
    if (fastRow(line, delim, cols, parsed)) {
      const t = parsed[tsCol]!;
      const prev = times[times.length - 1];
      if (prev === undefined || t > prev) {
        times.push(t);
        const row = new Array<number>(width);
        for (let k = 0; k < width; k++) row[k] = parsed[sensorAt[k]!]!;
        values.push(row);
        continue;
      }
    }
    const cells = splitLine(line, delim, lineNo);
    if (cells.length !== columns.length) {
      fail(`line ${lineNo} has ${cells.length} columns but the header has ${columns.length}; every row needs a timestamp and one value per sensor`);
    }
    const t = parseNumber(cells[tsCol] as string, delim);
    if (t === null) fail(`line ${lineNo}, column "${columns[tsCol]?.name}": "${cells[tsCol]}" is not a number`);
    const prev = times[times.length - 1];
    if (prev !== undefined && t <= prev) {
      fail(`line ${lineNo}: timestamp ${cells[tsCol]} is not after the previous one (${prev}); timestamps must increase`);
    }
    times.push(t);
    values.push(sensorCols.map((c) => {
      const v = parseNumber(cells[c.i] as string, delim);
      if (v === null) fail(`line ${lineNo}, column "${c.name}": "${cells[c.i]}" is not a number`);
      return v;
    }));
  }
  if (values.length < 2) fail(`found ${values.length} data rows; at least 2 are needed to work out the sampling interval`);

  // A typed array sorts numerically without a comparator call per step.
  const diffs = new Float64Array(times.length - 1);
  for (let i = 1; i < times.length; i++) diffs[i - 1] = times[i]! - times[i - 1]!;
  const median = medianOfSorted(diffs.sort());
  // Without units in the header, a sub-millisecond fractional step means the file counts seconds
  // (a 2 kHz sensor logged in ms would be misread: write "timestamp (ms)" to say so).
  const scale = explicitScale ?? (median < 1 && !Number.isInteger(median) ? 1000 : 1);
  return {
    interval_ms: Number((median * scale).toFixed(6)),
    sensors: sensorCols.map((c) => ({ name: c.name, units: c.units || UNKNOWN_UNITS })),
    values,
  };
}

function medianOfSorted(xs: ArrayLike<number>): number {
  const mid = Math.floor(xs.length / 2);
  return xs.length % 2 === 1 ? (xs[mid] as number) : ((xs[mid - 1] as number) + (xs[mid] as number)) / 2;
}
