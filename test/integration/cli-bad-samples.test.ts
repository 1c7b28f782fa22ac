// `capture-desk samples import` of files whose headers claim what no sensor or microphone does
// (issue 42, item 5): each is refused with the field, its value and the limits, exit 1, and none
// is indexed. The decoders' own tests are in test/unit/formats/bad-headers.test.ts.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { encodeCbor, sensorDoc, wav } from '../support/ingestion-server/fixtures.js';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-bad-samples-');
const withInterval = (ms: unknown) => {
  const d = sensorDoc([[1, 2], [3, 4]]);
  return { ...d, payload: { ...d.payload, interval_ms: ms } };
};
const LIMITS = 'the time between readings must be from 0.01 ms (100 kHz) to 86400000 ms (one reading a day)';

describe('samples import refuses headers no device writes', () => {
  const good = encodeCbor(sensorDoc([[1], [2]]));
  const at = good.indexOf(Buffer.from('values')) + 6;
  const ghz = Buffer.from(wav(10));
  ghz.writeUInt32LE(4_000_000_000, 24);
  const cases: Array<[string, Buffer | string, string]> = [
    ['tiny.1.json', JSON.stringify(withInterval(1e-300)), `payload.interval_ms: is 1e-300 ms: ${LIMITS}`],
    ['huge.1.json', JSON.stringify(withInterval(1e300)), `payload.interval_ms: is 1e+300 ms: ${LIMITS}`],
    ['inf.1.cbor', encodeCbor(withInterval(Infinity)), `payload.interval_ms: is Infinity ms: ${LIMITS}`],
    ['joined.1.cbor', Buffer.concat([good, Buffer.from([1, 2, 3])]), '3 bytes follow the end of the message: the file is damaged, or two files were joined into one'],
    ['rows.1.cbor', Buffer.concat([good.subarray(0, at), Buffer.from([0x9b, 0, 0, 0, 1, 0x80, 0, 0, 0]), good.subarray(at + 1)]), 'payload.values says it holds 6442450944 rows, but only'],
    ['ghz.1.wav', ghz, 'its header says 4000000000 Hz, more than the 384000 Hz audio is recorded at: the header is damaged'],
  ];
  it.each(cases)('%s', async (name, bytes, said) => {
    const file = join(root(), name);
    await writeFile(file, bytes);
    const data = join(root(), `data-${name}`);
    const r = await runCli(['samples', 'import', file, '--data-dir', data]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`not imported ${file}: "${name}" is not a readable`);
    expect(r.stderr).toContain(said);
    expect(r.stderr).not.toMatch(/Invalid typed array length|Infinity\b.*\d+ ms long/);
    expect(r.stdout).toBe('');
    expect((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout).toBe('');
  }, 30_000);
});

// A .json file that is some other JSON used to be refused with the validator's words ("protected:
// Invalid input: expected object, received undefined"); a JSON list was called torn CBOR. Now the
// sentence says what the file lacks and what import takes.
describe('samples import of JSON that is no data-acquisition file', () => {
  const TAKES = '"samples import" takes the platform\'s data-acquisition files (.json or .cbor, an object with "protected", "signature" and "payload"), .wav recordings, .csv files of readings, and info.labels exports.';
  const { payload: _p, ...noPayload } = sensorDoc([[1], [2]]);
  const cases: Array<[string, string, string]> = [
    ['o.json', '{}', '"o.json" is not a data-acquisition file: it has no "protected" header, "signature" or "payload". ' + TAKES],
    ['half.json', JSON.stringify(noPayload), '"half.json" is not a data-acquisition file: it has no "payload". ' + TAKES],
    ['list.json', '[1, 2]', '"list.json" is not a data-acquisition file: it holds a list, not an object'],
    ['str.json', JSON.stringify({ ...sensorDoc([[1]]), protected: 'x' }), '"str.json" is not a readable data-acquisition file: its "protected" is a string where the format has an object'],
  ];
  it.each(cases)('%s', async (name, body, said) => {
    const file = join(root(), name);
    await writeFile(file, body);
    const r = await runCli(['samples', 'import', file, '--data-dir', join(root(), `data-${name}`)]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`not imported ${file}: ${said}`);
    expect(r.stderr).not.toMatch(/Invalid input|expected object|received undefined|CBOR/);
  }, 30_000);
});
