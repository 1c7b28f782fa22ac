import { sep } from 'node:path';
import type { Sample } from '../contract/contract.js';
import { fsyncDir } from '../fs/atomic-write.js';
import { removeAll, renameAll, writeSynced, type SyncedWrite } from '../fs/synced-writes.js';
import { lengthFromBytes } from './formats/sample-length.js';
import { newRow, type NewSample } from './new-sample.js';
import type { QualityFile } from './quality/check-sample.js';
import type { QualityVerdict } from './quality/policy.js';
import { rowToSample, type SampleRow } from './sample-row.js';
import { newSampleId } from './sample-id.js';
import { ownFileName, sha256, storedName } from './sample-files.js';
import { sidecarName, sidecarOf } from './sidecar.js';

/** Bytes we own that become one sample of a batch (SampleStore.addCopies). */
export interface NewCopy {
  input: NewSample;
  /** Handed over: a buffer these bytes own whole is moved to the writer thread (empty here after the call; see SyncedWrite.data). */
  bytes: Uint8Array;
  /** The file they were made from, so importing it again finds this sample; null = none (a CSV made into CBOR). */
  source: { path: string; sha256: string } | null;
  /** The bytes' hash when the caller has it (a bulk import hashes every file as it reads it). */
  sha256?: string;
}

/** A batch of copies written to temp names (SampleStore.stageCopies), to be indexed or thrown away. */
export interface StagedCopies {
  /** Waits for the files, moves them into place and indexes them; their samples, in order. */
  commit(): Promise<Sample[]>;
  /** Removes the temp files instead. */
  discard(): Promise<void>;
}

/** What staging needs of the store. */
export interface CopyTarget {
  /** The samples folder, normalized. */
  dir: string;
  inspect(file: QualityFile, input: NewSample): Promise<QualityVerdict | null>;
  /** Inserts the rows in one transaction; their sidecars are on disk already. */
  index(rows: SampleRow[]): void;
}

/**
 * A batch of copies, staged: the rows are made and the files (under temp names) start being
 * written and synced beside their sidecars at once; `commit` waits for them, moves them into
 * place, syncs the folder once and indexes them; `discard` removes them instead.
 */
export async function stageCopies(target: CopyTarget, items: readonly NewCopy[]): Promise<StagedCopies> {
  const { dir } = target;
  const rows: SampleRow[] = [];
  const sidecars: SyncedWrite[] = [];
  const files: SyncedWrite[] = [];
  for (const it of items) {
    const id = newSampleId();
    const file = ownFileName(id, it.input.name);
    const input = it.input.lengthMs === undefined ? { ...it.input, lengthMs: lengthFromBytes(it.input.name, it.bytes) } : it.input;
    const verdict = await target.inspect({ bytes: it.bytes }, input);
    const row = newRow(id, input, { file: storedName(file), owned: true, source: it.source, bytes: it.bytes.byteLength, sha256: it.sha256 ?? sha256(it.bytes) }, verdict);
    rows.push(row);
    // The sidecar the SidecarWriter would write after the commit, written before it instead, and
    // under its own name: it is new, it is synced before its file is moved into place, and one
    // that a crash tore has no file beside it, so nothing reads it (a rename each cost 6 % of an import).
    const side = `${dir}${sep}${sidecarName(id)}`;
    sidecars.push({ temp: side, to: side, data: Buffer.from(JSON.stringify(sidecarOf(row))) });
    // `dir` is normalized and the names have no separator: no path.join per file.
    files.push({ temp: `${dir}${sep}.${file}.tmp`, to: `${dir}${sep}${file}`, data: it.bytes });
  }
  const written = rows.length === 0 ? Promise.resolve() : writeSynced(dir, [...sidecars, ...files]);
  written.catch(() => {}); // awaited by commit or discard
  const sidecarPaths = sidecars.map((f) => f.to);
  return {
    commit: async () => {
      if (rows.length === 0) return [];
      await written;
      try {
        await renameAll(files);
      } catch (err) {
        await removeAll(sidecarPaths);
        throw err;
      }
      await fsyncDir(dir);
      target.index(rows);
      return rows.map(rowToSample);
    },
    discard: async () => {
      if (await written.then(() => true, () => false)) await removeAll([...sidecarPaths, ...files.map((f) => f.temp)]);
    },
  };
}
