// The signed acquisition sample the simulated AT board records: CBOR, signed the way the platform's
// tools sign (HMAC-SHA256 over the encoding with 64 '0's where the signature goes, then the hex
// signature written over those zeros, so no other byte moves).
import { createHash, createHmac } from 'node:crypto';
import { Encoder } from 'cbor-x';

// Standard CBOR: records off (no tag d9dfff), minimal map headers.
const cbor = new Encoder({ useRecords: false, variableMapSize: true });
const ZEROS = '0'.repeat(64);

/** The board's sensors, as its AT+CONFIG? lists them and as samples name their axes. */
export const SENSORS = [
  {
    name: 'Built-in accelerometer', maxSampleLengthS: 300, frequencies: [62.5, 100],
    axes: [['accX', 'm/s2'], ['accY', 'm/s2'], ['accZ', 'm/s2']],
  },
  { name: 'Built-in microphone', maxSampleLengthS: 60, frequencies: [16000], axes: [['audio', 'wav']] },
];

/**
 * @param {{ deviceId: string, deviceType: string, intervalMs: number, lengthMs: number,
 *           hmacKey: string, sensor: typeof SENSORS[number], seq: number }} o
 */
export function makeSample(o) {
  const rows = Math.max(1, Math.floor(o.lengthMs / o.intervalMs));
  const audio = o.sensor.axes.length === 1;
  const values = [];
  for (let i = 0; i < rows; i++) {
    values.push(o.sensor.axes.map((_, a) =>
      audio ? Math.round(Math.sin(i / 7 + o.seq) * 3000) : Math.round(Math.sin(i / 10 + a + o.seq) * 981) / 100));
  }
  const msg = {
    protected: { ver: 'v1', alg: o.hmacKey ? 'HS256' : 'none', iat: Math.floor(Date.now() / 1000) },
    signature: ZEROS,
    payload: {
      device_name: o.deviceId,
      device_type: o.deviceType,
      interval_ms: o.intervalMs,
      sensors: o.sensor.axes.map(([name, units]) => ({ name, units })),
      values,
    },
  };
  const bytes = Buffer.from(cbor.encode(msg));
  if (o.hmacKey) {
    const signature = createHmac('sha256', o.hmacKey).update(bytes).digest('hex');
    bytes.write(signature, bytes.indexOf(ZEROS, 0, 'latin1'), 'latin1');
  }
  return { bytes, rows, sha256: createHash('sha256').update(bytes).digest('hex') };
}
