import type { ConnectionCheck, ConnectionStep, KeyStatus, Settings } from '../../../src-main/core/contract/contract.js';
import { keySourceText } from '../key-source.js';

export type ItemId = 'project' | 'api-key' | 'hmac-key' | 'test';

export interface ChecklistItem {
  id: ItemId;
  title: string;
  /** done ✓, todo (needed), optional (fine either way), problem (tried and failed). */
  state: 'done' | 'todo' | 'optional' | 'problem';
  detail: string;
}

/** What a new user has to give before uploads can work: the project id and its API key. */
export function setupNeeded(keys: KeyStatus, settings: Settings): boolean {
  return settings.projectId === null || keys.apiKey !== 'set';
}

/** Done when both are given and the platform said yes to them. */
export function setupDone(keys: KeyStatus, settings: Settings, check: ConnectionCheck | null): boolean {
  return !setupNeeded(keys, settings) && check?.ok === true;
}

export const PART_NAMES: Record<ConnectionStep['part'], string> = {
  'api-key': 'API key',
  project: 'Project',
  management: 'Management API',
  ingestion: 'Ingestion service',
  'hmac-key': 'HMAC key',
};

/** The first-run checklist, from what the core says now (keys.status, settings, the last test). */
export function checklist(keys: KeyStatus, settings: Settings, check: ConnectionCheck | null): ChecklistItem[] {
  const failed = check?.steps.filter((s) => s.ok === false) ?? [];
  return [
    settings.projectId === null
      ? { id: 'project', title: 'Project ID', state: 'todo', detail: 'Not set. It is the number in the project URL on the platform (…/studio/12345).' }
      : { id: 'project', title: 'Project ID', state: 'done', detail: `Project ${settings.projectId}.` },
    keys.apiKey === 'set'
      ? { id: 'api-key', title: 'API key', state: 'done', detail: keySourceText(keys.apiKeySource, 'set') }
      : keys.apiKey === 'unknown'
        ? { id: 'api-key', title: 'API key', state: 'problem', detail: `The keychain cannot be used now${keys.keychainProblem ? `: ${keys.keychainProblem}` : '.'}` }
        : { id: 'api-key', title: 'API key', state: 'todo', detail: "Not set. Copy it from the project's dashboard on the platform (Keys); it is kept in the system keychain." },
    {
      id: 'hmac-key',
      title: 'HMAC key (optional)',
      state: keys.hmacKey === 'set' ? 'done' : 'optional',
      detail: keys.hmacKey === 'set' ? 'Set: captured sensor files are signed.' : 'Not set: captured sensor files go unsigned. Set it to let the platform check where they came from.',
    },
    check === null
      ? { id: 'test', title: 'Test connection', state: 'todo', detail: 'Asks the platform with this key and project id; nothing is stored.' }
      : check.ok
        ? { id: 'test', title: 'Test connection', state: 'done', detail: 'Every part answered as expected.' }
        : { id: 'test', title: 'Test connection', state: 'problem', detail: `Did not work: ${failed.map((s) => PART_NAMES[s.part]).join(', ')}.` },
  ];
}

/** One sentence for screen readers and the notice: what worked, or what did not. */
export function checkSummary(check: ConnectionCheck): string {
  const failed = check.steps.filter((s) => s.ok === false);
  if (failed.length === 0) return `Connection works: ${check.steps.filter((s) => s.ok === true).map((s) => PART_NAMES[s.part]).join(', ')} answered as expected.`;
  return `Connection test failed. ${failed.map((s) => `${PART_NAMES[s.part]}: ${s.message}${s.url ? ` (${s.url})` : ''}`).join(' ')}`;
}
