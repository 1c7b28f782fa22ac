import { describe, expect, it } from 'vitest';
import { pathExamples } from '../../../src-renderer/lib/path-examples.js';
import { WatchedFolderInput } from '../../../src-main/core/contract/watch-schema.js';

describe('path examples', () => {
  it("spells examples the way the core's OS does", () => {
    expect(pathExamples('win32')).toEqual({ folder: 'C:\\Users\\me\\captures', port: 'COM7' });
    expect(pathExamples('darwin').port).toMatch(/^\/dev\/cu\./);
    expect(pathExamples('linux').folder).toBe('/home/me/captures');
  });

  it('gives folder examples the watch form accepts', () => {
    for (const platform of ['win32', 'darwin', 'linux']) {
      const { folder } = pathExamples(platform);
      expect(WatchedFolderInput.safeParse({ path: folder, category: 'training', label: { mode: 'filename' } }).success, platform).toBe(true);
    }
  });
});
