// The first-run checklist and "Test connection": what each item says from keys.status, settings
// and the last test, when the guide opens by itself, and the test against the platform emulator
// with a good key, a wrong key and a wrong project, through the renderer's own state class.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionCheck, KeyStatus, Settings } from '../../../src-main/core/contract/contract.js';
import { createCore, type Core } from '../../../src-main/core/app.js';
import { createLogger } from '../../../src-main/core/log.js';
import { memoryKeychain } from '../../../src-main/core/secrets/keychain.js';
import { createApi, type Api } from '../../../src-renderer/lib/api/client.js';
import { checklist, checkSummary, setupDone, setupNeeded } from '../../../src-renderer/lib/setup/checklist.js';
import { ConnectionTest } from '../../../src-renderer/lib/state/connection-test.svelte.js';
import { SetupGuide } from '../../../src-renderer/lib/state/setup-guide.svelte.js';
import { fixedPorts } from '../../support/fake-hardware.js';
import { startIngestionServer, type IngestionServer } from '../../support/ingestion-server/server.js';

const keychain = { from: 'keychain', name: null, stored: true } as const;
const keys = (patch: Partial<KeyStatus> = {}): KeyStatus => ({ apiKey: 'not set', hmacKey: 'not set', keychainProblem: null, apiKeySource: keychain, hmacKeySource: keychain, ...patch });
const settings = (projectId: number | null) => ({ projectId }) as Settings;
const check = (ok: boolean): ConnectionCheck => ({
  ok,
  checkedAt: '2026-01-01T00:00:00.000Z',
  steps: ok
    ? [{ part: 'api-key', ok: true, message: 'The management API accepts the API key.', url: null }, { part: 'project', ok: true, message: 'Project 7 answers.', url: 'http://x/api/7/raw-data/project-metadata' }]
    : [{ part: 'api-key', ok: false, message: 'The platform refused the API key for project 7.', url: 'http://x/api/7/raw-data/project-metadata' }],
});

describe('the checklist', () => {
  it('is needed without a project id or an API key, and done once both are given and the test passed', () => {
    expect(setupNeeded(keys(), settings(null))).toBe(true);
    expect(setupNeeded(keys({ apiKey: 'set' }), settings(null))).toBe(true);
    expect(setupNeeded(keys(), settings(7))).toBe(true);
    expect(setupNeeded(keys({ apiKey: 'unknown' }), settings(7))).toBe(true);
    expect(setupNeeded(keys({ apiKey: 'set' }), settings(7))).toBe(false);
    expect(setupDone(keys({ apiKey: 'set' }), settings(7), null)).toBe(false);
    expect(setupDone(keys({ apiKey: 'set' }), settings(7), check(false))).toBe(false);
    expect(setupDone(keys({ apiKey: 'set' }), settings(7), check(true))).toBe(true);
  });

  it('says what each item is, where it comes from, and that the HMAC key is optional', () => {
    const fresh = checklist(keys(), settings(null), null);
    expect(fresh.map((i) => [i.id, i.state])).toEqual([['project', 'todo'], ['api-key', 'todo'], ['hmac-key', 'optional'], ['test', 'todo']]);
    expect(fresh[0]!.detail).toContain('number in the project URL');
    expect(fresh[1]!.detail).toContain('system keychain');
    expect(fresh[2]!.detail).toContain('unsigned');

    const given = checklist(keys({ apiKey: 'set', hmacKey: 'set', apiKeySource: { from: 'environment', name: 'CAPTURE_DESK_API_KEY', stored: false } }), settings(7), check(true));
    expect(given.map((i) => i.state)).toEqual(['done', 'done', 'done', 'done']);
    expect(given[0]!.detail).toBe('Project 7.');
    expect(given[1]!.detail).toContain('From the environment (CAPTURE_DESK_API_KEY), not stored');

    const refused = checklist(keys({ apiKey: 'set' }), settings(7), check(false));
    expect(refused[3]).toMatchObject({ state: 'problem', detail: 'Did not work: API key.' });
    const noKeychain = checklist(keys({ apiKey: 'unknown', keychainProblem: 'No Secret Service is running.' }), settings(7), null);
    expect(noKeychain[1]).toMatchObject({ state: 'problem', detail: 'The keychain cannot be used now: No Secret Service is running.' });
  });

  it('sums a test up in one sentence: what worked, or each part that did not with its URL', () => {
    expect(checkSummary(check(true))).toBe('Connection works: API key, Project answered as expected.');
    expect(checkSummary(check(false))).toBe('Connection test failed. API key: The platform refused the API key for project 7. (http://x/api/7/raw-data/project-metadata)');
  });
});

describe('the guide', () => {
  const storage = () => {
    const m = new Map<string, string>();
    return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k) };
  };

  it('opens by itself once at start when something is missing, not when all is set', () => {
    const g = new SetupGuide(storage());
    g.consider(null, settings(null)); // keys not known yet: wait
    expect(g.open).toBe(false);
    g.consider(keys(), settings(null));
    expect(g.open).toBe(true);
    g.finish();
    g.consider(keys(), settings(null)); // decided once
    expect(g.open).toBe(false);

    const set = new SetupGuide(storage());
    set.consider(keys({ apiKey: 'set' }), settings(7));
    expect(set.open).toBe(false);
    set.show(); // the ? menu
    expect(set.open).toBe(true);
  });

  it('hidden by hand, it stays hidden at the next start until the ? menu shows it again', () => {
    const kept = storage();
    new SetupGuide(kept).hide();
    const next = new SetupGuide(kept);
    next.consider(keys(), settings(null));
    expect(next.open).toBe(false);
    next.show();
    const after = new SetupGuide(kept);
    after.consider(keys(), settings(null));
    expect(after.open).toBe(true);
  });
});

describe('Test connection', () => {
  let work: string;
  let core: Core;
  let api: Api;
  let platform: IngestionServer;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'cd-setup-'));
    platform = await startIngestionServer({ apiKeys: ['ei_good'], projectId: 7 });
    core = await createCore({ dataDir: join(work, 'data'), shell: 'browser', uploads: false, hardware: { ports: fixedPorts([]), keychain: memoryKeychain() }, log: createLogger(() => {}) });
    api = createApi({ call: (m, i) => core.dispatch(m, i), onEvent: (l) => core.onEvent(l), onStatus: () => () => {} });
    await api.call('settings.set', { ingestionUrl: platform.url, managementUrl: platform.managementUrl });
  });
  afterAll(async () => {
    await core.close();
    await platform.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** What the app holds now, as App.svelte hands it to the test. */
  async function state() {
    return { settings: await api.call('settings.get', {}), keys: await api.call('keys.status', {}), keyEdits: 0 };
  }

  /** Sets the project and the API key, then runs the test as the checklist's button does: what the app held, and the answer. */
  async function testWith(projectId: number, key: string) {
    await api.call('settings.set', { projectId });
    await api.call('keys.set', { kind: 'api-key', key });
    const now = await state();
    return { now, r: await new ConnectionTest(api, () => now).run() };
  }

  it('a good key and project: every part works, and a changed project makes the answer old news', async () => {
    await api.call('settings.set', { projectId: 7 });
    await api.call('keys.set', { kind: 'api-key', key: 'ei_good' });
    let now = await state();
    const test = new ConnectionTest(api, () => now);
    const heard: ConnectionCheck[] = [];
    test.onChecked((c) => heard.push(c));
    const [a, b] = await Promise.all([test.run('setup-test'), test.run('settings-test')]);
    expect(a).toBe(b); // one test at a time
    expect(test.askedFrom).toBe('setup-test');
    expect(heard).toHaveLength(1);
    expect(test.result?.ok).toBe(true);
    expect(test.result?.steps.find((s) => s.part === 'project')).toMatchObject({ ok: true, url: `${platform.managementUrl}/api/7/raw-data/project-metadata` });
    expect(platform.samples).toHaveLength(0);

    now = { ...now, keyEdits: 1 }; // the key was replaced: still "set", but another key
    expect(test.result).toBeNull();
    expect(test.outdated).toBe(true);
    now = { ...now, keyEdits: 0, settings: { ...now.settings, projectId: 8 } };
    expect(test.result).toBeNull();
    now = { ...now, settings: { ...now.settings, projectId: 7 } };
    expect(test.result?.ok).toBe(true); // the same project and key again: the answer holds
  });

  it('a wrong key: the API key and the ingestion service say no, with the URL asked', async () => {
    const { r } = await testWith(7, 'ei_wrong');
    expect(r?.ok).toBe(false);
    expect(r?.steps.find((s) => s.part === 'api-key')).toMatchObject({ ok: false, url: `${platform.managementUrl}/api/7/raw-data/project-metadata` });
    expect(r?.steps.find((s) => s.part === 'ingestion')).toMatchObject({ ok: false });
    expect(checkSummary(r!)).toMatch(/^Connection test failed\. API key: The platform refused the API key for project 7/);
  });

  it('a wrong project: the project is named, the key still works for ingestion', async () => {
    const { now, r } = await testWith(8, 'ei_good');
    expect(r?.ok).toBe(false);
    expect(r?.steps.find((s) => s.part === 'project')?.message).toMatch(/Project 8 was not found/);
    expect(r?.steps.find((s) => s.part === 'ingestion')).toMatchObject({ ok: true });
    const items = checklist(now.keys, now.settings, r);
    expect(items.find((i) => i.id === 'test')).toMatchObject({ state: 'problem', detail: 'Did not work: Project.' });
  });
});
