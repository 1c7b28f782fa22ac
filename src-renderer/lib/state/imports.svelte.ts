import type { Category, Sample } from '../../../src-main/core/contract/contract.js';
import { labelProblem } from '../../../src-main/core/contract/label-rule.js';
import type { Api } from '../api/client.js';
import { addByPaths, addOneFile, MAX_DROP_BYTES, PLATFORM_MAX_BYTES, type AddFileOutcome, type PathOf } from '../samples/add-one-file.js';
import type { LabelMode } from '../samples/label-mode.js';
import type { ChangeWatch, SampleIndex } from './sample-index.svelte.js';

export interface ImportItem {
  id: number;
  name: string;
  bytes: number;
  status: 'waiting' | 'sending' | 'added' | 'refused' | 'cancelled';
  /** Why it was refused or cancelled. */
  message: string | null;
  /** The sample an added file became: its current record is the sample index's (`sampleOf`). */
  sample: Sample | null;
  /** Added earlier already (same path and content). */
  known: boolean;
}

/**
 * A drop's files with a path on disk sent in one call: the core reads and indexes them a chunk at a
 * time (256 to a transaction) on its main thread, and the list shows progress after each call.
 */
const PATHS_PER_CALL = 256;

/** Files dropped or picked on the Samples view: by path a few hundred a call, by bytes one at a time so memory stays bounded. */
export class Imports {
  category = $state<Category>('training');
  labelMode = $state<LabelMode>('filename');
  fixedLabel = $state('');
  queue = $state(true);
  items = $state.raw<ImportItem[]>([]);
  /** A problem with the form itself (e.g. fixed label left empty); nothing was sent. */
  formError = $state<string | null>(null);
  busy = $derived(this.items.some((i) => i.status === 'waiting' || i.status === 'sending'));
  finished = $derived(this.items.filter((i) => i.status === 'added' || i.status === 'refused' || i.status === 'cancelled').length);
  #next = 1;
  /** Items at or below this id were cancelled: a file already sent still finishes (it is saved). */
  #cancelledUpTo = 0;
  /** Each added row keeps its sample current in the index until the row is cleared. */
  readonly #releases = new Map<number, () => void>();

  /** pathOf: the Electron window's way to learn a file's path (files are then added by path, not by bytes). */
  constructor(
    private readonly api: Api,
    private readonly index: SampleIndex,
    private readonly pathOf: PathOf | null = null,
  ) {}

  /** The largest file this shell can add: by path the platform's limit, by bytes the browser's cap. */
  get maxFileBytes(): number {
    return this.pathOf ? PLATFORM_MAX_BYTES : MAX_DROP_BYTES;
  }

  /** The sample an added row stands for, as it is now; null once deleted (or for rows not added). */
  sampleOf(item: ImportItem): Sample | null {
    if (!item.sample || this.index.isGone(item.sample.id)) return null;
    return this.index.get(item.sample.id) ?? item.sample;
  }

  async add(files: readonly File[]): Promise<void> {
    if (files.length === 0) return;
    const label = this.#label();
    if (label === false) {
      this.formError = 'Type the label to give these files, or choose another label option.';
      return;
    }
    // Said once, before anything is sent, rather than as the same refusal on every file's row.
    const problem = typeof label === 'string' ? labelProblem(label) : null;
    if (problem) {
      this.formError = problem;
      return;
    }
    this.formError = null;
    // Finished rows from earlier drops make way; rows still running stay.
    const fresh = files.map((f): ImportItem => ({ id: this.#next++, name: f.name, bytes: f.size, status: 'waiting', message: null, sample: null, known: false }));
    this.clearFinished();
    this.items = [...this.items, ...fresh];
    const options = { category: this.category, queue: this.queue, ...(label === undefined ? {} : { label }) };
    const paths = files.map((f) => this.pathOf?.(f) ?? '');
    for (let i = 0; i < files.length;) {
      if (fresh[i]!.id <= this.#cancelledUpTo) {
        i++;
        continue;
      }
      // Files with a path on disk go to the core together, PATHS_PER_CALL at a time (one call and
      // one commit for them all, not one each); the others one at a time, by their bytes.
      let end = i + 1;
      if (paths[i] !== '') while (end < files.length && end - i < PATHS_PER_CALL && paths[end] !== '') end++;
      const group = fresh.slice(i, end);
      this.#setMany(new Map(group.map((item) => [item.id, { status: 'sending' }])));
      // The samples come back current, but for changes announced while the call ran: the index is
      // asked only for those, not for every file just added.
      const watch = this.index.watch();
      let outcomes: AddFileOutcome[];
      try {
        outcomes = paths[i] !== '' ? await addByPaths(this.api, paths.slice(i, end), options) : [await addOneFile(this.api, files[i]!, options)];
      } catch (err) {
        watch.stop();
        throw err;
      }
      const patches = new Map<number, Partial<ImportItem>>();
      const added: Array<{ item: number; sample: Sample }> = [];
      group.forEach((item, k) => {
        const outcome = outcomes[k]!;
        if (outcome.status === 'refused') {
          patches.set(item.id, { status: 'refused', message: outcome.message });
        } else {
          added.push({ item: item.id, sample: outcome.sample });
          patches.set(item.id, { status: 'added', sample: outcome.sample, known: outcome.known });
        }
      });
      this.#holdGroup(added, watch);
      this.#setMany(patches);
      i = end;
    }
  }

  /** Stops adding the files still waiting; the one being sent finishes, nothing half-added remains. */
  cancel(): void {
    this.#cancelledUpTo = this.#next - 1;
    this.items = this.items.map((i) => (i.status === 'waiting' ? { ...i, status: 'cancelled', message: 'cancelled — not added' } : i));
  }

  clearFinished(): void {
    const running = (i: ImportItem) => i.status === 'waiting' || i.status === 'sending';
    for (const i of this.items) if (!running(i)) this.#release(i.id);
    this.items = this.items.filter(running);
  }

  /** Lets go of every sample the list holds (the app is closing). */
  dispose(): void {
    for (const id of [...this.#releases.keys()]) this.#release(id);
  }

  /** undefined = let the core derive it from the file name; null = unlabeled; false = form incomplete. */
  #label(): string | null | undefined | false {
    if (this.labelMode === 'filename') return undefined;
    if (this.labelMode === 'unlabeled') return null;
    const label = this.fixedLabel.trim();
    return label === '' ? false : label;
  }

  /** One hold for a group's samples; it is let go once every row of the group is cleared (they finish together, and clear together). */
  #holdGroup(added: ReadonlyArray<{ item: number; sample: Sample }>, watch: ChangeWatch): void {
    const release = this.index.hold(added.map((a) => a.sample), watch);
    let left = added.length;
    for (const a of added) this.#releases.set(a.item, () => --left === 0 && release());
  }

  /** One pass over the list for a whole group (a drop of thousands is thousands of rows). */
  #setMany(patches: ReadonlyMap<number, Partial<ImportItem>>): void {
    this.items = this.items.map((i) => {
      const patch = patches.get(i.id);
      return patch ? { ...i, ...patch } : i;
    });
  }

  #release(id: number): void {
    this.#releases.get(id)?.();
    this.#releases.delete(id);
  }
}
