import type { DeviceSensor } from '../ingestion-server/server.js';

export interface Hello {
  version: 3 | 4;
  deviceId: string;
  deviceType: string;
  sensors: DeviceSensor[];
  connection: string;
  raw: Record<string, unknown>;
}

export type HelloCheck = { ok: true; hello: Hello } | { ok: false; err: string };

export const INVALID_KEY = 'Invalid API key';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The first bad sensor field as an error text, or the sensors as the platform stores them. */
function sensorsOf(value: unknown): DeviceSensor[] | string {
  if (!Array.isArray(value)) return 'hello.sensors must be an array of { name, maxSampleLengthS, frequencies }';
  const sensors: DeviceSensor[] = [];
  for (const [i, s] of value.entries()) {
    const at = `hello.sensors[${i}]`;
    if (!isObject(s)) return `${at} must be an object { name, maxSampleLengthS, frequencies }`;
    const { name, maxSampleLengthS, frequencies } = s;
    if (typeof name !== 'string' || name === '') return `${at}.name must be a non-empty string`;
    if (!isNumber(maxSampleLengthS)) return `${at}.maxSampleLengthS must be a number`;
    if (!Array.isArray(frequencies) || !frequencies.every(isNumber)) return `${at}.frequencies must be an array of numbers`;
    sensors.push({ name, maxSampleLengthS, frequencies: [...frequencies] });
  }
  return sensors;
}

/**
 * Checks a hello message's inner object. The key is checked before the other fields so a device
 * with a wrong key always learns that first (the public daemon stops on it rather than retrying).
 */
export function checkHello(value: unknown, apiKeys: readonly string[], refuseAll: boolean): HelloCheck {
  if (!isObject(value)) return { ok: false, err: 'hello must be an object' };
  const { version, apiKey, deviceId, deviceType, sensors, connection, mode } = value;
  if (version !== 3 && version !== 4) return { ok: false, err: `hello.version must be 3 or 4 (got ${JSON.stringify(version)})` };
  if (refuseAll || typeof apiKey !== 'string' || !apiKeys.includes(apiKey)) return { ok: false, err: INVALID_KEY };
  if (typeof deviceId !== 'string' || deviceId === '') return { ok: false, err: 'hello.deviceId must be a non-empty string' };
  if (typeof deviceType !== 'string') return { ok: false, err: 'hello.deviceType must be a string' };
  if (mode !== undefined && typeof mode !== 'string') return { ok: false, err: 'hello.mode must be a string' };
  const checked = sensorsOf(sensors);
  if (typeof checked === 'string') return { ok: false, err: checked };
  return {
    ok: true,
    hello: { version, deviceId, deviceType, sensors: checked, connection: typeof connection === 'string' ? connection : '', raw: value },
  };
}
