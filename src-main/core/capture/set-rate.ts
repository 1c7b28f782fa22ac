import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { decodeAcquisition, detectAcquisitionFormat } from '../samples/formats/acquisition.js';
import { sampleFilePath } from '../samples/sample-files.js';
import type { SampleStore } from '../samples/sample-store.js';
import { encodeRows } from './cbor-rows.js';
import { RECORDINGS_DIR } from '../recordings/recordings-folder.js';
import { writeAcquisition } from './sensor-recorder.js';
import { RATE_MISSING_NOTE } from './recorded-rate.js';

export const MAX_FREQUENCY_HZ = 100_000;

/** A sample kept without its rate (StreamRecording.finish with intervalMs null) still waits for one. */
export function needsRate(s: Pick<Sample, 'extra'>): boolean {
  return s.extra['rate_missing'] === true;
}

/**
 * Finishes a sample that was kept without its sampling rate: the person says what the rate was,
 * the rows are written again in the acquisition format with that interval (signed when the
 * project has an HMAC key), and the sample can be queued like any other. The rows themselves
 * are not touched; the file is replaced atomically, so a failure leaves the old one.
 */
export async function setSampleRate(store: SampleStore, id: string, frequencyHz: number, hmacKey: string | undefined): Promise<Sample> {
  if (!(Number.isFinite(frequencyHz) && frequencyHz > 0 && frequencyHz <= MAX_FREQUENCY_HZ)) {
    throw new CoreError('InvalidArguments', `The frequency must be a number of hertz above 0 and at most ${MAX_FREQUENCY_HZ}; got ${frequencyHz}.`);
  }
  const s = store.get(id);
  if (!needsRate(s)) throw new CoreError('InvalidArguments', await hasRateSentence(store.dataDir, s));
  const msg = decodeAcquisition(await readFile(join(store.dataDir, s.file)), 'cbor');
  const p = msg.payload;
  const width = p.sensors.length;
  const flat = new Float64Array(p.values.length * width);
  p.values.forEach((row, r) => row.forEach((v, a) => (flat[r * width + a] = v)));
  const tmpDir = join(store.dataDir, RECORDINGS_DIR);
  await mkdir(tmpDir, { recursive: true });
  // Not named like a recording (<uuid>.rows + .json): start-up recovery must never pick it up.
  const rowsFile = join(tmpDir, `.set-rate.${s.id}.rows.tmp`);
  const reserved = store.reserveFile('.cbor');
  const intervalMs = 1000 / frequencyHz;
  try {
    await writeFile(rowsFile, encodeRows(flat, width, p.values.length));
    await writeAcquisition(reserved.tempPath, rowsFile, p.values.length, { ...(p.device_name === undefined ? {} : { deviceName: p.device_name }), deviceType: p.device_type, sensors: p.sensors }, { intervalMs, hmacKey });
    const interrupted = s.extra['interrupted'] === true;
    const { rate_missing: _gone, interrupted: _also, ...extra } = s.extra;
    const note = s.note?.split('; ').filter((n) => n !== RATE_MISSING_NOTE).join('; ') || null;
    return await store.replaceFile(id, reserved, {
      lengthMs: p.values.length * intervalMs,
      incomplete: interrupted,
      note: interrupted ? note : null,
      extra: { ...extra, interval_ms: intervalMs, frequency_hz: frequencyHz, rate_given: true, signed: hmacKey !== undefined },
    });
  } finally {
    await rm(rowsFile, { force: true });
    await rm(reserved.tempPath, { force: true });
  }
}

/**
 * Why a sample cannot be given a rate, in words: the rate it has (from the index, else from its
 * file: a sample imported from CSV has the interval its timestamps gave), or that it is no sensor
 * recording. Never a "?": a person reads this.
 */
async function hasRateSentence(dataDir: string, s: Sample): Promise<string> {
  const only = 'only a sample kept without one can be given one.';
  if (s.kind !== 'sensor') return `Sample "${s.name}" is ${s.kind === 'audio' || s.kind === 'image' || s.kind === 'other' ? 'an' : 'a'} ${s.kind} sample, not a sensor recording: set-rate only gives a rate to a sensor sample that was kept without one.`;
  let ms = typeof s.extra['interval_ms'] === 'number' ? s.extra['interval_ms'] : null;
  if (ms === null) {
    try {
      const bytes = await readFile(sampleFilePath(dataDir, s));
      const i = decodeAcquisition(bytes, detectAcquisitionFormat(bytes)).payload.interval_ms;
      if (typeof i === 'number') ms = i;
    } catch {
      // An unreadable file still has the rate it was added with: said without the number.
    }
  }
  if (ms === null || !(ms > 0)) return `Sample "${s.name}" already has its rate (its file's timestamps give it); ${only}`;
  // Rounded as a person says it: 1000/3 Hz is "3.33333 ms", not "3.3333333333333335 ms".
  return `Sample "${s.name}" already has its rate (${Number(ms.toPrecision(6))} ms between rows); ${only}`;
}
