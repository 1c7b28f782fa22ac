import { CoreError } from '../../errors.js';
import { checkBoundingBoxList, type BoundingBox } from './bounding-boxes.js';

/**
 * The platform's object detection labels file, `bounding_boxes.labels`: what its exporter writes
 * next to the images and its uploader reads from an image's own folder. Keyed by file name:
 *
 *   {"version": 1, "type": "bounding-box-labels", "boundingBoxes": {"cat.jpg": [{"label": "cat", "x": 10, "y": 20, "width": 50, "height": 40}]}}
 *
 * Coordinates are absolute pixels from the image's top-left corner.
 */
export interface BoundingBoxesLabelsFile {
  version: 1;
  type: 'bounding-box-labels';
  boundingBoxes: Record<string, BoundingBox[]>;
}

export const BOUNDING_BOXES_LABELS = 'bounding_boxes.labels';

export function buildBoundingBoxesLabels(boxes: ReadonlyMap<string, BoundingBox[]>): string {
  const doc: BoundingBoxesLabelsFile = { version: 1, type: 'bounding-box-labels', boundingBoxes: Object.fromEntries(boxes) };
  return JSON.stringify(doc);
}

/** Checks every list with the ingestion service's own rules, so a bad box is named before anything is sent. */
export function parseBoundingBoxesLabels(text: string): BoundingBoxesLabelsFile {
  const fail = (why: string): never => {
    throw new CoreError('InvalidArguments', `${BOUNDING_BOXES_LABELS}: ${why}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    return fail(`not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const o = (typeof doc === 'object' && doc !== null && !Array.isArray(doc) ? doc : fail('must be a JSON object')) as Record<string, unknown>;
  if (o['version'] !== 1) fail('version must be 1 (the only version the platform writes)');
  if (o['type'] !== 'bounding-box-labels') fail('type must be "bounding-box-labels"');
  const all = o['boundingBoxes'];
  if (typeof all !== 'object' || all === null || Array.isArray(all)) return fail('boundingBoxes must be an object of file name to a list of boxes');
  const boundingBoxes: Record<string, BoundingBox[]> = {};
  for (const [name, list] of Object.entries(all)) {
    const r = checkBoundingBoxList(list, `boundingBoxes "${name}":`);
    if (!r.ok) fail(r.error);
    else boundingBoxes[name] = r.boxes;
  }
  return { version: 1, type: 'bounding-box-labels', boundingBoxes };
}
