// The watched-folder form checks a fixed label as the capture panel does (label-rule.ts): a label
// over the limit is said in words on the form, and no folder is added with it.
import { describe, expect, it } from 'vitest';
import type { Api } from '../../../src-renderer/lib/api/client.js';
import { WatchedFolders } from '../../../src-renderer/lib/state/watched-folders.svelte.js';

describe('watched folders: the add form', () => {
  it('refuses a fixed label over 128 characters before asking the core, saying its length and the limit', async () => {
    const called: string[] = [];
    const api = { call: async (method: string) => void called.push(method), on: () => () => {} } as unknown as Api;
    const folders = new WatchedFolders(api);
    folders.path = '/data/in';
    folders.labelMode = 'fixed';
    folders.fixedLabel = 'x'.repeat(200);
    expect(await folders.add()).toBe(false);
    expect(folders.formError).toBe('The label is 200 characters long; a label is at most 128. Shorten it.');
    expect(called).toEqual([]);
  });
});
