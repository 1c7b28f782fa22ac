/** How long past its set length a take waits for readings a stalled board has not sent, then keeps what came. */
export const RECORD_TAIL_MS = 2000;

/**
 * Resolves when a `record serial` take is over: its set length counted in the board's readings,
 * Ctrl+C, or the board gone (kept as incomplete). The host's clock only says when to stop waiting
 * for readings that do not come (a stalled board): a tail after the length, then what arrived is kept.
 */
export function takeEnded(lengthMs: number, take: { onInterrupt(cb: () => void): void; onFull(cb: () => void): void }): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, lengthMs + RECORD_TAIL_MS);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    take.onInterrupt(stop);
    take.onFull(stop);
  });
}
