import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { BoundingBox, Category, StructuredLabel } from '../contract/contract.js';
import { BOUNDING_BOXES_LABELS, parseBoundingBoxesLabels } from '../samples/formats/bounding-boxes-labels.js';
import { fileKind } from '../samples/formats/label-from-filename.js';

export const INFO_LABELS = 'info.labels';

/**
 * The platform's labels files found beside uploaded files, read the way its own uploader reads
 * them: `info.labels` lists files by path relative to its folder (so one at the root can describe
 * training/ and testing/) with category, label, structured labels, metadata and boxes;
 * `bounding_boxes.labels` gives boxes to the images of its own folder, by file name, and wins over
 * boxes from info.labels (spec, bounding box rule 3). What a file's labels files say wins over the
 * run's flags, as a labels file in a request wins over the request's headers.
 */
export interface FileAnnotation {
  category?: Category;
  /** A label (trimmed: it travels in an HTTP header), or null for "unlabeled" and structured labels. */
  label?: string | null;
  structuredLabels?: StructuredLabel[];
  metadata?: Record<string, string>;
  boundingBoxes?: BoundingBox[];
}

/** What one labels file gave to the files of this run. */
export interface LabelsFileReport {
  path: string;
  labels: number;
  categories: number;
  structured: number;
  metadata: number;
  boxes: number;
  /** Listed but not uploaded in this run (gone, or outside the paths given). */
  notInRun: string[];
  /** Boxes it gives files that are not images: the platform stores none there. */
  boxesOnNonImages: string[];
}

export interface FolderLabels {
  byFile: Map<string, FileAnnotation>;
  reports: LabelsFileReport[];
  /** Files a labels file that cannot be read would describe: sending them would lose its labels. */
  refused: Map<string, string>;
}

interface Described {
  file: string;
  /** Folder depth of the labels file: the nearest info.labels describes a file. */
  depth: number;
  annotation: FileAnnotation;
  report: LabelsFileReport;
}

/** Reads the labels files and works out, per file of the run, what they say. */
export async function readFolderLabels(files: readonly string[], labelsFiles: readonly string[]): Promise<FolderLabels> {
  const inRun = new Set(files);
  const reports: LabelsFileReport[] = [];
  const refused = new Map<string, string>();
  const info: Described[] = [];
  const boxes = new Map<string, { boxes: BoundingBox[]; report: LabelsFileReport }>();

  for (const path of [...new Set(labelsFiles)].sort()) {
    const dir = dirname(path);
    const report: LabelsFileReport = { path, labels: 0, categories: 0, structured: 0, metadata: 0, boxes: 0, notInRun: [], boxesOnNonImages: [] };
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      refuseCovered(files, path, `cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`, refused);
      continue;
    }
    try {
      if (basename(path) === BOUNDING_BOXES_LABELS) {
        for (const [name, list] of Object.entries(parseBoundingBoxesLabels(text).boundingBoxes)) {
          const file = join(dir, name);
          if (!inRun.has(file)) report.notInRun.push(name);
          else boxes.set(file, { boxes: list, report });
        }
      } else {
        // Loaded on demand: its schemas (zod) cost a bulk upload's start-up only when a folder has one.
        const { parseInfoLabels } = await import('../samples/formats/info-labels.js');
        for (const e of parseInfoLabels(text).files) {
          const file = isAbsolute(e.path) ? resolve(e.path) : join(dir, e.path);
          if (!inRun.has(file)) {
            report.notInRun.push(e.path);
            continue;
          }
          const a: FileAnnotation = { category: e.category };
          if (e.label?.type === 'label') a.label = e.label.label.trim();
          else if (e.label?.type === 'unlabeled') a.label = null;
          else if (e.label?.type === 'multi-label') Object.assign(a, { label: null, structuredLabels: e.label.labels });
          if (e.metadata) a.metadata = e.metadata;
          if (e.boundingBoxes) a.boundingBoxes = e.boundingBoxes;
          info.push({ file, depth: dir.split(sep).length, annotation: a, report });
        }
      }
    } catch (err) {
      refuseCovered(files, path, (err as Error).message, refused);
      continue;
    }
    reports.push(report);
  }

  const byFile = new Map<string, FileAnnotation>();
  // Deepest last, so the info.labels nearest a file is the one that describes it.
  for (const d of info.sort((x, y) => x.depth - y.depth)) byFile.set(d.file, d.annotation);
  const credited = new Map<string, LabelsFileReport>();
  for (const d of info) if (byFile.get(d.file) === d.annotation) credited.set(d.file, d.report);
  for (const [file, b] of boxes) byFile.set(file, { ...byFile.get(file), boundingBoxes: b.boxes });

  for (const [file, a] of byFile) {
    if (refused.has(file)) {
      byFile.delete(file);
      continue;
    }
    const r = credited.get(file);
    if (r) {
      if (a.category !== undefined) r.categories++;
      if (a.structuredLabels) r.structured++;
      else if (a.label !== undefined) r.labels++;
      if (a.metadata) r.metadata++;
    }
    if (a.boundingBoxes && a.boundingBoxes.length > 0) {
      const from = boxes.get(file)?.report ?? r;
      if (!from) continue;
      if (fileKind(file) === 'image') from.boxes++;
      else from.boxesOnNonImages.push(basename(file));
    }
  }
  return { byFile, reports, refused };
}

/**
 * A labels file that cannot be read refuses the files it would describe: the images of its folder
 * (bounding_boxes.labels), or everything under its folder (info.labels). Sending them without
 * their labels and exiting 0 is what this module exists to prevent.
 */
function refuseCovered(files: readonly string[], path: string, why: string, into: Map<string, string>): void {
  const dir = dirname(path);
  const reason = `${path} cannot be used: ${why}. Fix it, or move it out of the folder to upload without it.`;
  for (const f of files) {
    const covered = basename(path) === BOUNDING_BOXES_LABELS ? dirname(f) === dir : f.startsWith(dir + sep);
    if (covered && !into.has(f)) into.set(f, reason);
  }
}

/** One line per labels file: what it contributed, and what it listed that this run did not send. */
export function describeLabels(reports: readonly LabelsFileReport[]): string[] {
  const lines: string[] = [];
  const some = (names: string[]) => `${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`;
  const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;
  for (const r of reports) {
    const gave: string[] = [];
    if (r.labels) gave.push(`labels for ${files(r.labels)}`);
    if (r.structured) gave.push(`structured labels for ${files(r.structured)}`);
    if (r.categories) gave.push(`categories for ${files(r.categories)}`);
    if (r.metadata) gave.push(`metadata for ${files(r.metadata)}`);
    if (r.boxes) gave.push(`bounding boxes for ${r.boxes} image${r.boxes === 1 ? '' : 's'}`);
    lines.push(`labels file ${r.path}: ${gave.length ? gave.join(', ') : 'nothing for the files uploaded'}`);
    if (r.notInRun.length) lines.push(`labels file ${r.path}: lists ${files(r.notInRun.length)} not in this upload: ${some(r.notInRun)}`);
    if (r.boxesOnNonImages.length) lines.push(`labels file ${r.path}: boxes for ${files(r.boxesOnNonImages.length)} that are not images were not sent (boxes belong to images): ${some(r.boxesOnNonImages)}`);
  }
  return lines;
}
