import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { keepAside, readJsonFile } from '../fs/kept-json-file.js';
import type { Logger } from '../log.js';
import { WatchedFolder } from '../contract/watch-schema.js';

export const WATCHED_FOLDERS_FILE = 'watched-folders.json';

/** The file carries a version so a later layout can be told apart and migrated, not misread. */
const FORMAT_VERSION = 1;

export async function loadWatchedFolders(dataDir: string, log: Logger): Promise<WatchedFolder[]> {
  const file = join(dataDir, WATCHED_FOLDERS_FILE);
  const read = await readJsonFile(file);
  if (!read) return []; // nothing watched yet
  const raw = read.raw;
  const entries = isObject(raw) && raw.version === FORMAT_VERSION && Array.isArray(raw.folders) ? raw.folders : null;
  // Keep every folder that still reads well; a bad entry must not cost the user all the others.
  const folders: WatchedFolder[] = [];
  for (const e of entries ?? []) {
    const parsed = WatchedFolder.safeParse(e);
    if (parsed.success && !folders.some((f) => f.id === parsed.data.id)) folders.push(parsed.data);
  }
  if (entries === null || folders.length !== entries.length) {
    // Never lose what the user set up: the unreadable file is kept next to the new one.
    const aside = await keepAside(file);
    log.warn('watched folders file was partly unreadable; kept a copy and loaded the folders that were valid', { aside, kept: folders.length });
    await saveWatchedFolders(dataDir, folders);
  }
  return folders;
}

export async function saveWatchedFolders(dataDir: string, folders: readonly WatchedFolder[]): Promise<void> {
  const body = { version: FORMAT_VERSION, folders };
  await writeFileAtomic(join(dataDir, WATCHED_FOLDERS_FILE), JSON.stringify(body, null, 2) + '\n');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}
