/**
 * The ingestion service's x-bounding-boxes rules (spec "Bounding box rules" 1 and 5), so the
 * upload client can refuse a bad header before sending: the service itself answers 200 and
 * rejects the file quietly in files[].success.
 */

export interface BoundingBox {
  label: string;
  /** Absolute pixels from the image's top-left corner, not 0..1 fractions. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export type BoundingBoxesResult = { ok: true; boxes: BoundingBox[] } | { ok: false; error: string };

/** The order in which the service reports the first missing property. */
const PROPERTIES = ['label', 'x', 'y', 'width', 'height'] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks an already-parsed list; `source` prefixes the error texts exactly as the service does
 * ("x-bounding-boxes <property> is required"). A property of the wrong type, such as the numeric
 * string "10", counts as missing; so does a non-finite number (JSON's 1e999 parses to Infinity),
 * which no image coordinate can be.
 */
export function checkBoundingBoxList(value: unknown, source = 'x-bounding-boxes'): BoundingBoxesResult {
  if (!Array.isArray(value)) return { ok: false, error: `${source} is not a valid array` };
  const boxes: BoundingBox[] = [];
  for (const item of value as unknown[]) {
    const box = isObject(item) ? item : {};
    for (const prop of PROPERTIES) {
      const v = box[prop];
      const present = prop === 'label' ? typeof v === 'string' : typeof v === 'number' && Number.isFinite(v);
      if (!present) return { ok: false, error: `${source} ${prop} is required` };
    }
    // Copied field by field so extra properties are not sent on.
    boxes.push({
      label: box['label'] as string,
      x: box['x'] as number,
      y: box['y'] as number,
      width: box['width'] as number,
      height: box['height'] as number,
    });
  }
  return { ok: true, boxes };
}

/** Validates the raw x-bounding-boxes header value with the service's exact error texts. */
export function validateBoundingBoxes(headerValue: string): BoundingBoxesResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(headerValue);
  } catch {
    return { ok: false, error: 'x-bounding-boxes is not valid json' };
  }
  return checkBoundingBoxList(parsed, 'x-bounding-boxes');
}
