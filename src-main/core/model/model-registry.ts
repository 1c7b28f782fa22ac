import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ZodError } from 'zod';
import { CoreError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import type { Logger } from '../log.js';
import { describeModel } from './describe.js';
import { checkGlue, checkWasm, readExport, sha256 } from './model-files.js';
import { ModelRunner, type SpawnModelWorker } from './model-runner.js';
import { ModelName, ModelRecord, type ModelEntry, type UnreadableModel } from '../contract/model-schema.js';

const RECORD = 'model.json';
const FAILED = 'failed.txt';

export interface AddModelOptions {
  name?: string | undefined;
  axes?: number | undefined;
  /** How long the wasm may take to start (10 s; tests shorten it). */
  startTimeoutMs?: number;
  /** What to record as where it came from, when `path` is a temporary copy (a zip sent by the browser). */
  source?: string;
}

/**
 * The models added to a data folder: models/<name>/ holds the export's two files as added, a
 * package.json that makes the CommonJS glue load as CommonJS wherever the folder lies, and
 * model.json (the description and the files' hashes). Adding works in a hidden folder that is
 * renamed into place only when the model started and classified zeros: nothing half-added is left.
 */
export class ModelRegistry {
  readonly dir: string;

  constructor(dataDir: string, private readonly spawn: SpawnModelWorker, private readonly log: Logger) {
    this.dir = join(dataDir, 'models');
  }

  async add(path: string, o: AddModelOptions = {}): Promise<ModelEntry> {
    const files = await readExport(path);
    checkGlue(files.js, files.jsName);
    checkWasm(files.wasm, files.wasmName, path);
    const name = o.name ?? suggestName(files.suggestedName);
    const valid = ModelName.safeParse(name);
    if (!valid.success) throw new CoreError('InvalidArguments', `"${name}" cannot name a model: ${valid.error.issues[0]?.message}. Choose another name (--name NAME on the command line).`);
    if (await this.#exists(name)) throw new CoreError('InvalidArguments', `A model named "${name}" is already added. Choose another name (--name on the command line), or remove that one first (Settings → Models, or "capture-desk model remove ${name}").`);
    if (o.axes !== undefined && !(Number.isInteger(o.axes) && o.axes >= 1 && o.axes <= 64)) throw new CoreError('InvalidArguments', `--axes must be a whole number from 1 to 64; got ${o.axes}.`);

    await mkdir(this.dir, { recursive: true });
    const work = join(this.dir, `.adding-${randomBytes(6).toString('hex')}`);
    await mkdir(work);
    try {
      await writeFile(join(work, files.jsName), files.js);
      await writeFile(join(work, files.wasmName), files.wasm);
      await writeFile(join(work, 'package.json'), '{ "type": "commonjs", "private": true }\n');
      const runner = await ModelRunner.start(join(work, files.jsName), this.spawn, o.startTimeoutMs).catch((err: unknown) => {
        // The sentence is the error; the module's stack frames, if any, are for the log only.
        const detail = err instanceof CoreError ? (err.details as { detail?: string } | undefined)?.detail : undefined;
        if (detail) this.log.warn('model did not start', { source: resolve(path), detail });
        throw err;
      });
      let description;
      try {
        description = await describeModel(runner, o.axes ?? null);
      } finally {
        await runner.stop();
      }
      const js = { name: files.jsName, bytes: files.js.length, sha256: sha256(files.js) };
      const wasm = { name: files.wasmName, bytes: files.wasm.length, sha256: sha256(files.wasm) };
      const record: ModelRecord = ModelRecord.parse({
        name,
        addedAt: new Date().toISOString(),
        source: o.source ?? resolve(path),
        js,
        wasm,
        hash: sha256(`${js.sha256}${wasm.sha256}`),
        description,
      });
      await writeFileAtomic(join(work, RECORD), JSON.stringify(record, null, 2) + '\n');
      if (await this.#exists(name)) throw new CoreError('InvalidArguments', `A model named "${name}" was added meanwhile. Choose another name.`);
      await rename(work, join(this.dir, name));
      this.log.info('model added', { name, hash: record.hash, sensor: description.sensor, labels: description.labels.length });
      return { ...record, status: 'ready', problem: null };
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Every added model, each checked against its files on disk. Folders whose model.json cannot be read are left out (see listAll()), never thrown. */
  async list(): Promise<ModelEntry[]> {
    return (await this.listAll()).models;
  }

  /**
   * The models, and the model folders whose model.json is damaged (not JSON, not a model's
   * record): those cannot be described or run, but they are there, so they are listed with what
   * is wrong and what to do.
   */
  async listAll(): Promise<{ models: ModelEntry[]; unreadable: UnreadableModel[] }> {
    const models: ModelEntry[] = [];
    const unreadable: UnreadableModel[] = [];
    for (const name of await this.#names()) {
      const e = await this.#entry(name);
      if (e && 'unreadable' in e) unreadable.push({ name, problem: e.unreadable });
      else if (e) models.push(e);
    }
    return { models, unreadable };
  }

  async #names(): Promise<string[]> {
    try {
      return (await readdir(this.dir, { withFileTypes: true })).filter((d) => d.isDirectory() && !d.name.startsWith('.')).map((d) => d.name).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  async get(name: string): Promise<ModelEntry> {
    const e = ModelName.safeParse(name).success ? await this.#entry(name) : null;
    if (e && 'unreadable' in e) throw new CoreError('Unavailable', e.unreadable, { name });
    if (!e) {
      const names = (await this.list()).map((m) => m.name);
      throw new CoreError('NotFound', `No model named "${name}". ${names.length ? `Added: ${names.join(', ')}.` : 'None is added yet: "capture-desk model add EXPORT.zip".'}`);
    }
    return e;
  }

  /** The model to run: refused, with what to do, when its files are gone or changed. */
  async ready(name: string): Promise<{ entry: ModelEntry; jsPath: string }> {
    const entry = await this.get(name);
    if (entry.status === 'missing' || entry.status === 'changed') throw new CoreError('Unavailable', entry.problem ?? `Model "${name}" cannot run.`);
    return { entry, jsPath: join(this.dir, name, entry.js.name) };
  }

  async remove(name: string): Promise<void> {
    // A model whose model.json is damaged is removed all the same: that is the way out offered for it.
    const e = ModelName.safeParse(name).success ? await this.#entry(name) : null;
    if (!e || !('unreadable' in e)) await this.get(name);
    // Renamed away first, so a crash halfway never leaves a model that lists but cannot run.
    const gone = join(this.dir, `.removing-${randomBytes(6).toString('hex')}`);
    await rename(join(this.dir, name), gone);
    await rm(gone, { recursive: true, force: true });
    this.log.info('model removed', { name });
  }

  /** For a build that does not say its axes: the person says (the UI asks when a source meets it). */
  async setAxes(name: string, axes: number): Promise<ModelEntry> {
    const e = await this.get(name);
    if (!(Number.isInteger(axes) && axes >= 1 && axes <= 64)) throw new CoreError('InvalidArguments', `Axes must be a whole number from 1 to 64; got ${axes}.`);
    const d = e.description;
    // A microphone model is one channel whatever its record says: records from before this check
    // wrote axes "given" for "model add --axes 1", and set-axes then changed them.
    const own = d.axesFrom === 'model' ? d.axes : d.sensorCode === 1 ? 1 : null;
    if (own !== null) {
      const n = `${own} ${own === 1 ? 'axis' : 'axes'}`;
      if (axes !== own) throw new CoreError('InvalidArguments', `Model "${name}" says itself that it takes ${n}${d.sensorCode === 1 ? ' (a microphone model: one channel)' : ''}, so its axes cannot be set to ${axes}: a model that says its axes keeps them.`);
      // The same number: nothing to change (the command says "already"), bar such an old record.
      if (d.axesFrom === 'model') return e;
    }
    const description = { ...d, axes, axesFrom: own !== null ? ('model' as const) : ('given' as const), floatsPerWindow: axes * d.frameSampleCount, sliceFloats: d.continuous ? Math.floor((axes * d.frameSampleCount) / 4) : null };
    const record = ModelRecord.parse({ ...strip(e), description });
    await writeFileAtomic(join(this.dir, name, RECORD), JSON.stringify(record, null, 2) + '\n');
    return { ...record, status: e.status, problem: e.problem };
  }

  /** The runtime died twice in a row: kept as a note on the model until it runs again. */
  async markFailed(name: string, reason: string): Promise<void> {
    await writeFile(join(this.dir, name, FAILED), `${new Date().toISOString()} ${reason}\n`).catch((err: unknown) => this.log.warn('could not note a failed model', { name, error: String(err) }));
  }

  async clearFailed(name: string): Promise<void> {
    await rm(join(this.dir, name, FAILED), { force: true });
  }

  async #exists(name: string): Promise<boolean> {
    try {
      await readdir(join(this.dir, name));
      return true;
    } catch {
      return false;
    }
  }

  async #entry(name: string): Promise<ModelEntry | { unreadable: string } | null> {
    const dir = join(this.dir, name);
    const path = join(dir, RECORD);
    let record: ModelRecord;
    try {
      record = ModelRecord.parse(JSON.parse(await readFile(path, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      this.log.warn('unreadable model record', { name, error: String(err) });
      return { unreadable: `Model "${name}": ${path} ${recordProblem(err)}, so the model cannot be described or run. Remove it with "capture-desk model remove ${name}" (the app's model list does not show it) and add its export again.` };
    }
    for (const f of [record.js, record.wasm]) {
      let bytes: Buffer;
      try {
        bytes = await readFile(join(dir, f.name));
      } catch {
        return { ...record, status: 'missing', problem: `Model "${name}": ${f.name} is gone from ${dir}. Remove the model and add its export again.` };
      }
      if (sha256(bytes) !== f.sha256) {
        return { ...record, status: 'changed', problem: `Model "${name}": ${f.name} in ${dir} changed since it was added. Remove the model and add the export again, so that results name the build that made them.` };
      }
    }
    const failed = await readFile(join(dir, FAILED), 'utf8').catch(() => null);
    if (failed) return { ...record, status: 'failed', problem: `The model's runtime died twice in a row (${failed.trim()}). It is tried again the next time it is used.` };
    return { ...record, status: 'ready', problem: null };
  }
}

export type { UnreadableModel };

/** Why a model.json could not be taken, in words (not the parser's "Unexpected token…"). */
function recordProblem(err: unknown): string {
  if (err instanceof SyntaxError) return 'is not valid JSON (damaged, or edited by hand)';
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    const field = issue?.path.length ? issue.path.join('.') : 'its contents';
    return `does not describe a model (${field}: ${issue?.message ?? 'invalid'})`;
  }
  const code = (err as NodeJS.ErrnoException).code;
  return `cannot be read (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (code ?? 'error')})`;
}

function strip(e: ModelEntry): ModelRecord {
  const { status: _s, problem: _p, ...record } = e;
  return record;
}

/** "ei-gestures-wasm-v12" from the zip's name; anything outside the allowed characters becomes "-". */
function suggestName(raw: string): string {
  const cleaned = raw.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '').slice(0, 64);
  return cleaned || 'model';
}
