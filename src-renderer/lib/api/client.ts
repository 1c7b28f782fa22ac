// The one API client of the renderer. It knows the contract only through types, so the
// renderer bundle carries no schema library; the core checks every call where it arrives.
import type { CallResult, ErrorCode, EventName, EventPayload, MethodInput, MethodName, MethodOutput, WireError } from '../../../src-main/core/contract/contract.js';

export interface Transport {
  call(method: string, input: unknown): Promise<CallResult>;
  onEvent(listener: (name: EventName, payload: unknown) => void): () => void;
  /** Connection state for the UI; IPC is always "open". */
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  constructor(e: WireError) {
    super(e.message);
    this.name = 'ApiError';
    this.code = e.code;
    this.details = e.details;
  }
}

export interface Api {
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
  on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void): () => void;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
}

export function createApi(transport: Transport): Api {
  return {
    async call(method, input) {
      const r = await transport.call(method, input);
      if (!r.ok) throw new ApiError(r.error);
      return r.value as never;
    },
    on(name, listener) {
      return transport.onEvent((n, payload) => {
        if (n === name) listener(payload as never);
      });
    },
    onStatus: (l) => transport.onStatus(l),
  };
}
