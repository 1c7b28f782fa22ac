import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sample } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import { decodeAcquisition } from '../samples/formats/acquisition.js';
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
  if (!needsRate(s)) {
    throw new CoreError('InvalidArguments', `Sample "${s.name}" already has its rate (${s.extra['interval_ms'] ?? '?'} ms between rows); only a sample kept without one can be given one.`);
  }
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
