import type { Logger } from '../log.js';
import type { Db, Statement } from './db.js';
import type { NewSample } from './new-sample.js';
import type { QualityFile } from './quality/check-sample.js';
import type { QualityGate, QualityVerdict } from './quality/policy.js';
import { FLAGGED_LEVEL } from './sample-row.js';

/**
 * The data-quality gate as the sample store applies it: every new sample is checked before it is
 * indexed, and the hold setting keeps flagged ones out of the upload queue. A store without a gate
 * (the CLI's one-shot commands) checks nothing and holds nothing back.
 */
export class QualityHold {
  readonly #gate: QualityGate | null;
  readonly #db: Db;
  readonly #stmt: (sql: string) => Statement;
  readonly #changed: (ids: Iterable<string>) => void;
  readonly #log: Logger;

  constructor(gate: QualityGate | null, db: Db, stmt: (sql: string) => Statement, changed: (ids: Iterable<string>) => void, log: Logger) {
    this.#gate = gate;
    this.#db = db;
    this.#stmt = stmt;
    this.#changed = changed;
    this.#log = log;
  }

  /** The verdict for a new sample, or null when there is no gate. */
  async inspect(file: QualityFile, input: NewSample): Promise<QualityVerdict | null> {
    if (!this.#gate) return null;
    try {
      return await this.#gate.inspect(file, input);
    } catch (err) {
      // A bug in a check must never lose a capture: index it unchecked and say so in the log.
      this.#log.error('quality check crashed', { name: input.name, error: String(err) });
      return null;
    }
  }

  /** The hold setting of the gate, 'off' when there is none. */
  policy(): 'errors' | 'all' | 'off' {
    return this.#gate?.policy() ?? 'off';
  }

  /** Stores a new quality report (re-check); the queue state is left as it is. */
  setQuality(id: string, verdict: Pick<QualityVerdict, 'report' | 'flagged'>): void {
    this.#stmt('UPDATE samples SET quality = ?, flagged = ? WHERE id = ?').run(JSON.stringify(verdict.report), verdict.flagged ? FLAGGED_LEVEL[verdict.flagged] : 0, id);
    this.#changed([id]);
  }

  /**
   * Of these ids, the ones the hold setting keeps out of the queue: not yet sent and flagged at
   * the held severity. They are marked held_back; the others, and all of them when forced ("Upload
   * anyway"), lose the mark.
   */
  holdBack(ids: string[], force: boolean): string[] {
    const policy = this.policy();
    const min = policy === 'all' ? FLAGGED_LEVEL.warning : FLAGGED_LEVEL.error;
    const all = JSON.stringify(ids);
    return this.#db.transaction(() => {
      const rows = this.#stmt("SELECT id, flagged FROM samples WHERE id IN (SELECT value FROM json_each(?)) AND state IN ('local', 'failed', 'rejected')").all(all) as Array<{ id: string; flagged: number }>;
      const flagged = new Map(rows.map((r) => [r.id, r.flagged]));
      const held = ids.filter((id) => !force && policy !== 'off' && (flagged.get(id) ?? -1) >= min);
      this.#stmt('UPDATE samples SET held_back = id IN (SELECT value FROM json_each(?)) WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(held), all);
      this.#changed(ids);
      return held;
    })();
  }
}
