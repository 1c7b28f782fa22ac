import type { Category, Sample } from '../../../src-main/core/contract/contract.js';
import type { Api } from '../api/client.js';
import { errorText, formatBytes } from '../format.js';

/**
 * The browser shell's cap for a file added through the page: its bytes have to sit in the
 * renderer's memory and cross the connection in one message. Files with a path on disk (the
 * Electron window) are read by the core instead, up to the platform's 100 MB per file.
 */
export const MAX_DROP_BYTES = 32 * 1024 * 1024;
/** The platform's limit per file, which the core enforces for files added by path. */
export const PLATFORM_MAX_BYTES = 100 * 1024 * 1024;

/** The file's path on disk ('' when it has none); the Electron preload's pathForFile. */
export type PathOf = (file: File) => string;

export interface AddFileOptions {
  category: Category;
  queue: boolean;
  /** undefined = from the file name, null = unlabeled. */
  label?: string | null;
}

/**
 * What became of a file: the sample it is now (`known`: added before, same path and content), or
 * why it was refused. The sample is the core's answer at that moment, not a description of it: the
 * added-files list shows its current label, category and state from the sample index.
 */
export type AddFileOutcome = { status: 'added'; sample: Sample; known: boolean } | { status: 'refused'; message: string };

/**
 * Adds one dropped or picked file that has no path on disk (the browser shell, a pasted file) by
 * its bytes. Files with a path go through addByPaths, one or many.
 */
export async function addOneFile(api: Api, file: File, options: AddFileOptions): Promise<AddFileOutcome> {
  try {
    if (file.size > MAX_DROP_BYTES) {
      return { status: 'refused', message: `Larger than ${formatBytes(MAX_DROP_BYTES)}, the limit for files added in the browser; use the desktop app or \`capture-desk upload\` for big files.` };
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    return { status: 'added', sample: await api.call('samples.addFile', { name: file.name, bytes, ...options }), known: false };
  } catch (err) {
    return { status: 'refused', message: errorText(err) };
  }
}

/**
 * Adds files by their paths in one call (the Electron window's drop of many files): the core reads
 * and indexes them together, a few hundred to a transaction, instead of one call and one commit
 * each. One outcome per path, in order; a failed call refuses them all with its words.
 */
export async function addByPaths(api: Api, paths: readonly string[], options: AddFileOptions): Promise<AddFileOutcome[]> {
  try {
    const { results } = await api.call('samples.addPaths', { paths: [...paths], ...options });
    const byPath = new Map(results.map((r) => [r.path, r]));
    const seen = new Set<string>();
    return paths.map((path): AddFileOutcome => {
      const r = byPath.get(path);
      if (!r) return { status: 'refused', message: 'Capture Desk did not answer for this file; try again.' };
      if (r.status === 'refused') return { status: 'refused', message: r.reason };
      // The same file twice in one drop: added once, the second time found (as one file after the other would be).
      const again = seen.has(path);
      seen.add(path);
      return { status: 'added', sample: r.sample, known: r.status === 'known' || again };
    });
  } catch (err) {
    const message = errorText(err);
    return paths.map(() => ({ status: 'refused', message }));
  }
}
