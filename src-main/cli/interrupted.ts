/**
 * Ctrl+C as a flag a long loop looks at between steps (it ends what it does cleanly and says so);
 * `release()` puts the default behaviour back once the command is done.
 */
export function interruptFlag(): { readonly stopped: boolean; readonly signal: AbortSignal; release(): void } {
  let stopped = false;
  // For work that can stop in the middle (a sample in a model worker stops at its next window).
  const aborter = new AbortController();
  const stop = (): void => {
    stopped = true;
    aborter.abort();
  };
  process.once('SIGINT', stop);
  return {
    get stopped() {
      return stopped;
    },
    signal: aborter.signal,
    release: () => void process.off('SIGINT', stop),
  };
}
