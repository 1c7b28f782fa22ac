/**
 * Which rows are ticked. A shift-click extends from the last clicked row (the anchor) and gives the
 * whole range the state of the clicked row, as file managers and mail clients do.
 */
export class Selection {
  ids = $state.raw<ReadonlySet<string>>(new Set());
  size = $derived(this.ids.size);
  #anchor: string | null = null;

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** `order` is the rows as shown, so a range means what the user sees between the two clicks. */
  click(id: string, order: readonly string[], shift: boolean): void {
    const on = !this.ids.has(id);
    const next = new Set(this.ids);
    const from = this.#anchor === null ? -1 : order.indexOf(this.#anchor);
    const to = order.indexOf(id);
    const range = shift && from >= 0 && to >= 0 ? order.slice(Math.min(from, to), Math.max(from, to) + 1) : [id];
    for (const x of range) {
      if (on) next.add(x);
      else next.delete(x);
    }
    this.#anchor = id;
    this.ids = next;
  }

  selectAll(order: readonly string[]): void {
    this.ids = new Set(order);
  }

  clear(): void {
    this.ids = new Set();
    this.#anchor = null;
  }

  /** Drops rows no longer shown, so a bulk action never touches a sample the user cannot see. */
  keepOnly(order: readonly string[]): void {
    const shown = new Set(order);
    if ([...this.ids].every((id) => shown.has(id))) return;
    this.ids = new Set([...this.ids].filter((id) => shown.has(id)));
    if (this.#anchor !== null && !shown.has(this.#anchor)) this.#anchor = null;
  }
}
