import { events, type EventName, type EventPayload } from './contract/contract.js';

export type AnyEventListener = (name: EventName, payload: unknown) => void;

/**
 * Typed fan-out of core events. Bindings subscribe with `onAny` and forward everything, so a new
 * event in the contract needs no binding change. Every subscription returns its own removal.
 */
export class EventBus {
  readonly #listeners = new Set<AnyEventListener>();

  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    // Validate what we send: a malformed event is a core bug and should fail here, loudly.
    const checked = events[name].parse(payload);
    for (const l of [...this.#listeners]) l(name, checked);
  }

  onAny(listener: AnyEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void): () => void {
    return this.onAny((n, p) => {
      if (n === name) listener(p as EventPayload<E>);
    });
  }
}
