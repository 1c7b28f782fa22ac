import type { SampleAnswer, StartSamplingRequest } from '../ingestion-server/server.js';

/**
 * The sample message the platform sends a device. Absent optional fields are left out, not set to
 * undefined: CBOR would otherwise carry them as an explicit `undefined`.
 */
export function sampleMessage(req: StartSamplingRequest, hmacKey: string | null): Record<string, unknown> {
  const sample: Record<string, unknown> = {
    label: req.label,
    length: req.lengthMs,
    path: `/api/${req.category}/data`,
    hmacKey: hmacKey ?? '0',
    interval: req.intervalMs,
  };
  const optional = {
    sensor: req.sensor, labelColor: req.labelColor,
    collectedSampleCount: req.collectedSampleCount, targetSampleCount: req.targetSampleCount,
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) sample[k] = v;
  return { sample };
}

/**
 * The device's answer to a sample request, or null for any other message. The published schema
 * names the failure text `err`, the public clients send `error`; both are read.
 */
export function sampleAnswerOf(message: Record<string, unknown>): SampleAnswer | null {
  const flag = message['sample'];
  if (flag === true) return { ok: true };
  if (flag !== false) return null;
  const text = message['error'] ?? message['err'];
  return { ok: false, error: typeof text === 'string' ? text : 'Device refused the sample request' };
}
