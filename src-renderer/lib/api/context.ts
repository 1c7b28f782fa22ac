import { getContext } from 'svelte';
import type { Api } from './client.js';

/** The api client is injected once at mount (main.ts) and read by any component that needs it. */
export const API_CONTEXT = Symbol('capture-desk-api');

export function useApi(): Api {
  const api = getContext<Api | undefined>(API_CONTEXT);
  if (!api) throw new Error('No api client in context: mount the app through main.ts.');
  return api;
}
