import type { Category, MethodOutput } from '../../../src-main/core/contract/contract.js';
import { labelProblem } from '../../../src-main/core/contract/label-rule.js';
import type { Api } from '../api/client.js';
import { ApiError } from '../api/client.js';
import type { MetadataEntry } from '../capture/capture-prefs.svelte.js';
import type { LabelMode } from '../samples/label-mode.js';

type FolderState = MethodOutput<'watch.list'>[number];

export interface FolderView extends FolderState {
  /** Files that were there before watching began: offered, never imported unasked. */
  pending: number | null;
  /** The last files this folder could not import (vanished, unreadable, too big), newest first. */
  errors: Array<{ path: string; message: string }>;
}

/** Watched folders as the Settings view shows them, with the form that adds one. */
export class WatchedFolders {
  folders = $state<FolderView[]>([]);
  loading = $state(true);
  loadError = $state<string | null>(null);
  busy = $state(false);
  formError = $state<string | null>(null);
  /** The last thing that happened, for the status line (screen readers hear it too). */
  status = $state('');

  // The add form.
  path = $state('');
  category = $state<Category>('training');
  labelMode = $state<LabelMode>('filename');
  fixedLabel = $state('');
  metadata = $state<MetadataEntry[]>([]);

  readonly #api: Api;
  constructor(api: Api) {
    this.#api = api;
  }

  /** Subscribes to the folders' import errors; returns the unsubscribe. */
  listen(): () => void {
    return this.#api.on('watch.error', (e) => {
      const f = this.folders.find((x) => x.id === e.folderId);
      if (f) f.errors = [{ path: e.path, message: e.message }, ...f.errors].slice(0, 5);
    });
  }

  async refresh(): Promise<void> {
    try {
      const list = await this.#api.call('watch.list', {});
      const old = new Map(this.folders.map((f) => [f.id, f]));
      this.folders = list.map((f) => ({ ...f, pending: old.get(f.id)?.pending ?? null, errors: old.get(f.id)?.errors ?? [] }));
      this.loadError = null;
      await Promise.all(this.folders.map((f) => this.#countPending(f.id)));
    } catch (err) {
      this.loadError = message(err);
    } finally {
      this.loading = false;
    }
  }

  async add(): Promise<boolean> {
    this.formError = null;
    const path = this.path.trim();
    if (!path) {
      this.formError = 'Type the full path of the folder to watch, as in the example in the box.';
      return false;
    }
    if (this.labelMode === 'fixed' && !this.fixedLabel.trim()) {
      this.formError = 'Type the label every file in this folder gets, or pick another label rule.';
      return false;
    }
    const problem = this.labelMode === 'fixed' ? labelProblem(this.fixedLabel) : null;
    if (problem) {
      this.formError = problem;
      return false;
    }
    const label = this.labelMode === 'fixed' ? { mode: 'fixed' as const, label: this.fixedLabel.trim() } : { mode: this.labelMode };
    const metadata = Object.fromEntries(this.metadata.filter((m) => m.key.trim()).map((m) => [m.key.trim(), m.value]));
    this.busy = true;
    try {
      const f = await this.#api.call('watch.add', { path, category: this.category, label, metadata });
      this.path = '';
      this.status = `Watching ${f.path}.`;
      await this.refresh();
      return true;
    } catch (err) {
      this.formError = message(err);
      return false;
    } finally {
      this.busy = false;
    }
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    await this.#act(async () => {
      await this.#api.call('watch.setEnabled', { id, enabled });
      await this.refresh();
    });
  }

  async remove(id: string): Promise<void> {
    await this.#act(async () => {
      const f = this.folders.find((x) => x.id === id);
      await this.#api.call('watch.remove', { id });
      this.status = `Stopped watching ${f?.path ?? 'the folder'}. Its samples stay.`;
      await this.refresh();
    });
  }

  async importPending(id: string): Promise<void> {
    await this.#act(async () => {
      const r = await this.#api.call('watch.importPending', { id });
      const failed = r.failed.length ? `; ${r.failed.length} could not be added (${r.failed[0]!.path}: ${r.failed[0]!.reason})` : '';
      this.status = `Added ${r.added.length} file${r.added.length === 1 ? '' : 's'} to the upload queue${r.known ? `, ${r.known} were samples already` : ''}${failed}.`;
      await this.#countPending(id);
    });
  }

  async #countPending(id: string): Promise<void> {
    const f = this.folders.find((x) => x.id === id);
    if (!f) return;
    try {
      f.pending = (await this.#api.call('watch.pending', { id })).length;
    } catch {
      // A folder that is not being watched has nothing to offer; its problem is shown instead.
      f.pending = null;
    }
  }

  async #act(work: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.status = '';
    try {
      await work();
    } catch (err) {
      this.status = message(err);
    } finally {
      this.busy = false;
    }
  }
}

function message(err: unknown): string {
  return err instanceof ApiError || err instanceof Error ? err.message : String(err);
}

export function describeLabelRule(f: Pick<FolderState, 'label'>): string {
  return f.label.mode === 'fixed' ? `label "${f.label.label}"` : f.label.mode === 'filename' ? 'label from file name' : 'unlabeled';
}
