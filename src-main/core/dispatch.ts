import type { z } from 'zod';
import { isMethodName, methods, type CallResult, type MethodName, type MethodOutput, type Methods } from './contract/contract.js';
import { CoreError, toWireError } from './errors.js';
import type { Logger } from './log.js';

export type Handlers = {
  [M in MethodName]: (input: z.output<Methods[M]['input']>) => Promise<MethodOutput<M>> | MethodOutput<M>;
};

export type Dispatch = (method: unknown, input: unknown) => Promise<CallResult>;

/**
 * The one place where a call from any transport meets the core: unknown method names and
 * arguments that fail the schema are answered with a typed error and a log line, never thrown
 * into the transport, so a hostile or buggy client cannot take the core down.
 */
export function createDispatch(handlers: Handlers, log: Logger): Dispatch {
  return async (method, input) => {
    if (!isMethodName(method)) {
      const shown = typeof method === 'string' ? method.slice(0, 80) : typeof method;
      log.warn('rejected call to unknown method', { method: shown });
      return fail(new CoreError('UnknownMethod', `Unknown method "${shown}". Update the app so both sides speak the same contract.`));
    }
    const schema = methods[method];
    const parsed = schema.input.safeParse(input === undefined ? {} : input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
      log.warn('rejected call with invalid arguments', { method, issues });
      const first = issues[0];
      const where = first && first.path ? ` (${first.path}: ${first.message})` : first ? ` (${first.message})` : '';
      return fail(new CoreError('InvalidArguments', `Invalid arguments for ${method}${where}.`, { issues }));
    }
    try {
      const handler = handlers[method] as (i: unknown) => unknown;
      const value = await handler(parsed.data);
      // Checking our own answer catches core bugs at the boundary instead of in a far-away UI.
      return { ok: true, value: schema.output.parse(value) };
    } catch (err) {
      if (!(err instanceof CoreError)) log.error('method failed', { method, error: String(err) });
      return fail(err);
    }
  };
}

function fail(err: unknown): CallResult {
  return { ok: false, error: toWireError(err) };
}
