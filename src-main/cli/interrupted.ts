/**
 * Ctrl+C as a flag a long loop looks at between steps (it ends what it does cleanly and says so);
 * `release()` puts the default behaviour back once the command is done.
 */
export function interruptFlag(): { readonly stopped: boolean; release(): void } {
  let stopped = false;
  const stop = (): void => {
    stopped = true;
  };
  process.once('SIGINT', stop);
  return {
    get stopped() {
      return stopped;
    },
    release: () => void process.off('SIGINT', stop),
  };
}
