/**
 * What travels beside a batch's files in the same request (upload-queue.ts sends them): the
 * label files that say what a header cannot say about some of the files.
 */
import { BOUNDING_BOXES_LABELS, buildBoundingBoxesLabels } from '../samples/formats/bounding-boxes-labels.js';
import type { Part } from './multipart.js';
import type { BatchHeaders, QueuedFile } from './queue-store.js';

/**
 * Structured labels (event marks) cannot travel in a header: the platform reads them from an
 * info.labels file sent in the same request, which names each file it describes.
 */
export async function labelsSidecar(h: BatchHeaders, batch: QueuedFile[]): Promise<Part[]> {
  const marked = batch.filter((f) => f.structuredLabels && f.structuredLabels.length > 0);
  if (marked.length === 0) return [];
  // Loaded on demand: its schemas (zod) would cost every bulk upload's start-up for a rare case.
  const { buildInfoLabels } = await import('../samples/formats/info-labels.js');
  const text = buildInfoLabels(
    marked.map((f) => ({
      path: f.name,
      name: f.name.replace(/\.[^.]+$/, ''),
      category: h.category,
      label: { type: 'multi-label' as const, labels: f.structuredLabels! },
      metadata: h.metadata,
    })),
  );
  return [{ name: 'info.labels', bytes: Buffer.from(text), contentType: 'application/json' }];
}

/**
 * The platform's object detection labels file, naming each image of this request that has boxes.
 * Spec rule 3: it takes precedence per file, so each image gets its own boxes and the other files
 * of the request get none.
 */
export function boxesSidecar(batch: QueuedFile[]): Part[] {
  const boxed = batch.filter((f) => f.kind === 'image' && f.boundingBoxes.length > 0);
  if (boxed.length === 0) return [];
  const text = buildBoundingBoxesLabels(new Map(boxed.map((f) => [f.name, f.boundingBoxes])));
  return [{ name: BOUNDING_BOXES_LABELS, bytes: Buffer.from(text), contentType: 'application/json' }];
}
