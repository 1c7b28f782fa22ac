import { readFile, rename } from 'node:fs/promises';

/**
 * The data folder's JSON files that hold what the user set up (settings, watched folders) are read
 * the same way: no file is a first start, a file that is not JSON reads as `undefined` for the
 * caller's checks to refuse, and a refused file is never thrown away.
 */

/** The file's JSON (`raw` undefined when it does not parse); null when there is no file. Other read errors throw. */
export async function readJsonFile(file: string): Promise<{ raw: unknown } | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    return { raw: JSON.parse(text) as unknown };
  } catch {
    return { raw: undefined };
  }
}

/** Moves an unreadable file aside, to `<file>.broken-<ms>`, so a new one can be written; returns where it went. */
export async function keepAside(file: string): Promise<string> {
  const aside = `${file}.broken-${Date.now()}`;
  await rename(file, aside);
  return aside;
}
