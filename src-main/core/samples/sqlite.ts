import { createRequire } from 'node:module';
import type Libsql from 'libsql';

/**
 * libsql is loaded at the first open, not with this module: it is a 10 MB native library (~40 ms),
 * and a command like `upload` has files to list and a reader thread to start before it needs it.
 */
let loaded: typeof Libsql | null = null;
const libsql = (): typeof Libsql => (loaded ??= createRequire(import.meta.url)('libsql') as typeof Libsql);

/**
 * The SQLite connection the core uses: libsql (Rust, Node-API), so the one binary in node_modules
 * loads in Node (CLI, tests) and in Electron alike, with no rebuild per runtime.
 *
 * libsql 0.5.29 copies better-sqlite3's API but differs where it matters, so the core talks to this
 * wrapper and never to libsql itself (all measured, test/unit/samples/sqlite.test.ts):
 * - binding a boolean panics in Rust and aborts the whole process (uncatchable); a Buffer or null
 *   passed as the only argument is taken for a named-parameter object and panics or throws. Here
 *   every bound value is checked first and a bad one is a TypeError.
 * - `get()` rows carry an extra `_metadata` field (timings); it is dropped so no row leaks it.
 * - `pluck()` only applies to `all()`, and `pragma(…, { simple: true })` returns the whole row;
 *   both are done here.
 * - `transaction()` issues a plain BEGIN, so nesting fails, and a failed ROLLBACK (SQLite already
 *   rolled back) hides the error that caused it; here nesting uses savepoints and the first error
 *   is the one thrown, as with better-sqlite3.
 * - numbers always bind as REAL; columns declared INTEGER store them back as integers (affinity),
 *   so reads and comparisons see the same values.
 * - `close()` marks the connection closed but SQLite lets go of the file only when libsql's objects
 *   are garbage-collected: until then samples.db-wal and -shm stay (seen 2026-11-26, a test copying
 *   a closed data folder found -shm gone halfway through). Harmless here, as the WAL is folded in
 *   before close (SampleStore.close); not fixed, as nothing in the wrapper can force it.
 * - `inTransaction` on a closed connection panics in Rust (database.rs:155, `unwrap()` on None) and
 *   aborts the process; prepare/exec throw. Here it is false once closed, and a transaction started
 *   after close throws.
 */
export type BindValue = string | number | bigint | Uint8Array | null;
/** Positional values, or one object of named values (`@name` in the SQL), checked when bound. */
export type BindArgs = BindValue[] | [object];

export interface RunResult {
  changes: number;
}

type RawStatement = ReturnType<Libsql.Database['prepare']>;

/** SQLite's codes for a file that is not (or no longer) a sound database. */
const DAMAGED = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

/** True when `err` says the database file itself is damaged (not a busy lock, not a bad query). */
export function isDamagedDbError(err: unknown): boolean {
  return DAMAGED.has((err as { code?: unknown } | null)?.code as string);
}

/** Runs `fn`; a damaged-file error is reported to the connection's `onDamaged`, then rethrown unchanged. */
type Guard = <T>(fn: () => T) => T;

export class Statement {
  readonly #raw: RawStatement;
  readonly #sql: string;
  readonly #guard: Guard;
  #pluck = false;

  constructor(raw: RawStatement, sql: string, guard: Guard) {
    this.#raw = raw;
    this.#sql = sql;
    this.#guard = guard;
  }

  /** Rows become their first column's value. */
  pluck(on = true): this {
    this.#pluck = on;
    this.#raw.pluck(on);
    return this;
  }

  run(...args: BindArgs): RunResult {
    const r = this.#guard(() => this.#raw.run(bindable(args, this.#sql))) as { changes: number };
    return { changes: r.changes };
  }

  get(...args: BindArgs): unknown {
    const row = this.#guard(() => this.#raw.get(bindable(args, this.#sql))) as Record<string, unknown> | undefined;
    if (row === undefined) return undefined;
    const { _metadata, ...clean } = row;
    if (this.#pluck) return Object.values(clean)[0];
    return clean;
  }

  all(...args: BindArgs): unknown[] {
    return this.#guard(() => this.#raw.all(bindable(args, this.#sql)));
  }
}

export type Transaction<T> = () => T;

export class Db {
  readonly #raw: Libsql.Database;
  #savepoints = 0;
  #closed = false;
  /** Told when a statement finds the file damaged, so the next start rebuilds the index (see index-open.ts). */
  onDamaged: ((err: Error) => void) | null = null;

  constructor(path: string) {
    this.#raw = new (libsql())(path);
  }

  readonly #guard: Guard = (fn) => {
    try {
      return fn();
    } catch (err) {
      if (isDamagedDbError(err)) this.onDamaged?.(err as Error);
      throw err;
    }
  };

  // libsql panics (aborting the whole process) when asked this of a closed connection.
  get inTransaction(): boolean {
    return !this.#closed && this.#raw.inTransaction;
  }

  prepare(sql: string): Statement {
    return new Statement(this.#guard(() => this.#raw.prepare(sql)), sql, this.#guard);
  }

  exec(sql: string): void {
    this.#guard(() => this.#raw.exec(sql));
  }

  /** `pragma('x = y')` sets; `pragma('x', { simple: true })` reads one value; otherwise the rows. */
  pragma(source: string, opts: { simple?: boolean } = {}): unknown {
    const st = this.prepare(`PRAGMA ${source}`);
    return opts.simple ? st.pluck().get() : st.all();
  }

  /**
   * Wraps `fn` so a call runs it in one transaction (a savepoint inside another one): committed if
   * it returns, rolled back if it throws. `fn` must be synchronous: a commit cannot wait for a promise.
   */
  transaction<T>(fn: () => T): Transaction<T> {
    return () => {
      if (this.#closed) throw new TypeError('The sample index is closed: a transaction was started after the data folder was closed.');
      const nested = this.#raw.inTransaction;
      const name = `nested_${++this.#savepoints}`;
      this.#raw.exec(nested ? `SAVEPOINT ${name}` : 'BEGIN');
      let result: T;
      try {
        result = fn();
        if (result instanceof Promise) throw new TypeError('A transaction function must not return a promise: the commit would not wait for it.');
      } catch (err) {
        // SQLite may have rolled back already (e.g. disk full); that must not hide `err`.
        if (this.inTransaction) {
          try {
            this.#raw.exec(nested ? `ROLLBACK TO ${name}; RELEASE ${name}` : 'ROLLBACK');
          } catch (rollbackErr) {
            (err as { rollbackError?: unknown }).rollbackError = rollbackErr;
          }
        }
        throw err;
      } finally {
        this.#savepoints--;
      }
      this.#raw.exec(nested ? `RELEASE ${name}` : 'COMMIT');
      return result;
    };
  }

  close(): void {
    this.#closed = true;
    this.#raw.close();
  }
}

/**
 * The argument libsql gets: always one array (positional) or one plain object (named), never a
 * bare value it could mistake for named parameters, and never a value its Rust side panics on.
 */
function bindable(args: BindArgs, sql: string): BindValue[] | object {
  const first = args[0];
  if (args.length === 1 && isNamed(first)) {
    for (const [k, v] of Object.entries(first)) check(v, `@${k}`, sql);
    return first;
  }
  for (let i = 0; i < args.length; i++) check(args[i] as BindValue, `parameter ${i + 1}`, sql);
  return args as BindValue[];
}

function isNamed(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !ArrayBuffer.isView(v) && !Array.isArray(v);
}

function check(v: unknown, where: string, sql: string): void {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'bigint':
      return;
    case 'object':
      if (v === null || v instanceof Uint8Array) return;
  }
  throw new TypeError(`SQLite can only bind strings, numbers, bigints, bytes and null; ${where} is ${v === undefined ? 'undefined' : typeof v} in: ${sql.trim().slice(0, 80)}`);
}
