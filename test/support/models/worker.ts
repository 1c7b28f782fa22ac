import { bundleForNode } from '../audio/build-worker.mjs';
import { useBeforeAll } from '../before-all.js';
import { modelWorkerSpawner, type SpawnModelWorker } from '../../../src-main/core/model/model-runner.js';

/**
 * The model worker bundled from the TypeScript sources (vitest runs sources; a worker thread
 * needs a JavaScript file), once per content, under node_modules/.cache.
 */
export async function testModelSpawner(): Promise<SpawnModelWorker> {
  return modelWorkerSpawner(await bundleForNode('src-main/core/model/model-worker.ts'));
}

/** testModelSpawner() once for the test file, before its tests (bundling may take a while); the getter gives it inside a test. */
export function useModelSpawner(): () => SpawnModelWorker {
  return useBeforeAll('the model worker', testModelSpawner, { timeoutMs: 60_000 });
}
