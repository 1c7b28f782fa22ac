/**
 * THE contract between the core and any UI (Electron renderer over IPC, browser over WebSocket).
 *
 * Every method is `input schema → output schema`, every event stream has a payload schema. The
 * bindings (electron/ipc.ts, server/ws-session.ts) are generic over this table, so adding a
 * capability never touches them. The renderer imports only the *types* derived here.
 *
 * This folder is the contract's one home: the method table per domain (*-methods.ts), the events
 * (events.ts) and the shapes per domain (*-schema.ts). Nothing in it imports Node, Electron or any
 * file of the core but true leaves (category.ts), so the services that use the contract sit above it.
 * Callers import every shape from here, or from its own schema file.
 */
import type { z } from 'zod';
import { appMethods } from './app-methods.js';
import { captureMethods } from './capture-methods.js';
import { classifyMethods } from './classify-methods.js';
import { events } from './events.js';
import { manualMethods } from './manual-methods.js';
import { modelMethods } from './model-methods.js';
import { remoteMethods } from './remote-methods.js';
import { reviewMethods } from './review-methods.js';
import { sampleMethods } from './sample-methods.js';
import { watchMethods } from './watch-methods.js';

export * from './app-schema.js';
export * from './capture-schema.js';
export * from './classify-schema.js';
export * from './diagnostics-schema.js';
export * from './manual-schema.js';
export * from './model-schema.js';
export * from './model-test-schema.js';
export * from './remote-schema.js';
export * from './review-schema.js';
export * from './sample-schema.js';
export * from './watch-schema.js';
export * from './wire-schema.js';
export { events };

export const methods = {
  ...appMethods,
  ...captureMethods,
  ...sampleMethods,
  ...watchMethods,
  ...remoteMethods,
  ...reviewMethods,
  ...classifyMethods,
  ...modelMethods,
  ...manualMethods,
} as const;

// ---------- derived types (the renderer imports only these) ----------

export type Methods = typeof methods;
export type MethodName = keyof Methods;
export type MethodInput<M extends MethodName> = z.input<Methods[M]['input']>;
export type MethodOutput<M extends MethodName> = z.output<Methods[M]['output']>;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;

export function isMethodName(name: unknown): name is MethodName {
  return typeof name === 'string' && Object.hasOwn(methods, name);
}
