/**
 * Collects values and hands them over at most every `intervalMs`: a queue moving thousands of
 * samples must not send the UI thousands of messages.
 */
export function coalesce<T>(intervalMs: number, flush: (items: T[]) => void): { push(item: T): void; flushNow(): void; stop(): void } {
  let items: T[] = [];
  let timer: NodeJS.Timeout | null = null;
  const run = () => {
    timer = null;
    if (items.length === 0) return;
    const batch = items;
    items = [];
    flush(batch);
  };
  return {
    push(item) {
      items.push(item);
      timer ??= setTimeout(run, intervalMs);
    },
    flushNow() {
      if (timer) clearTimeout(timer);
      run();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      items = [];
    },
  };
}
