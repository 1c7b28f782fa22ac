import type { Category } from '../../../src-main/core/contract.js';
import type { Api } from '../api/client.js';
import { addOneFile, MAX_DROP_BYTES, PLATFORM_MAX_BYTES, type PathOf } from '../samples/add-one-file.js';

export type LabelMode = 'filename' | 'fixed' | 'unlabeled';

export interface ImportItem {
  id: number;
  name: string;
  bytes: number;
  status: 'waiting' | 'sending' | 'added' | 'refused' | 'cancelled';
  message: string | null;
}

/** Files dropped or picked on the Samples view, added one at a time so memory stays bounded. */
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

  /** pathOf: the Electron window's way to learn a file's path (files are then added by path, not by bytes). */
  constructor(
    private readonly api: Api,
    private readonly pathOf: PathOf | null = null,
  ) {}

  /** The largest file this shell can add: by path the platform's limit, by bytes the browser's cap. */
  get maxFileBytes(): number {
    return this.pathOf ? PLATFORM_MAX_BYTES : MAX_DROP_BYTES;
  }

  async add(files: readonly File[]): Promise<void> {
    if (files.length === 0) return;
    const label = this.#label();
    if (label === false) {
      this.formError = 'Type the label to give these files, or choose another label option.';
      return;
    }
    this.formError = null;
    // Finished rows from earlier drops make way; rows still running stay.
    const fresh = files.map((f): ImportItem => ({ id: this.#next++, name: f.name, bytes: f.size, status: 'waiting', message: null }));
    this.items = [...this.items.filter((i) => i.status === 'waiting' || i.status === 'sending'), ...fresh];
    const options = { category: this.category, queue: this.queue, ...(label === undefined ? {} : { label }) };
    for (const [i, file] of files.entries()) {
      const item = fresh[i]!;
      if (item.id <= this.#cancelledUpTo) continue;
      this.#set(item.id, 'sending', null);
      const outcome = await addOneFile(this.api, file, options, this.pathOf);
      this.#set(item.id, outcome.status, outcome.message);
    }
  }

  /** Stops adding the files still waiting; the one being sent finishes, nothing half-added remains. */
  cancel(): void {
    this.#cancelledUpTo = this.#next - 1;
    this.items = this.items.map((i) => (i.status === 'waiting' ? { ...i, status: 'cancelled', message: 'cancelled — not added' } : i));
  }

  clearFinished(): void {
    this.items = this.items.filter((i) => i.status === 'waiting' || i.status === 'sending');
  }

  /** undefined = let the core derive it from the file name; null = unlabeled; false = form incomplete. */
  #label(): string | null | undefined | false {
    if (this.labelMode === 'filename') return undefined;
    if (this.labelMode === 'unlabeled') return null;
    const label = this.fixedLabel.trim();
    return label === '' ? false : label;
  }

  #set(id: number, status: ImportItem['status'], message: string | null): void {
    this.items = this.items.map((i) => (i.id === id ? { ...i, status, message } : i));
  }
}
