// Bundled by the "model" benchmark section (model.mjs, via bundleForNode): the app's own model code
// as the core runs it, for the figures taken in the bench process itself (per-window time through
// ModelSession, a live microphone stream through LiveModel, memory over 100,000 windows).
export { LiveModel, percentile } from '../../src-main/core/model/live-model.js';
export type { LiveRows, WindowMeta } from '../../src-main/core/model/live-model.js';
export { ModelRegistry } from '../../src-main/core/model/model-registry.js';
export { defaultModelWorkerPath, modelWorkerSpawner } from '../../src-main/core/model/model-runner.js';
export { ModelSession } from '../../src-main/core/model/model-session.js';
export { silentLogger } from '../../src-main/core/log.js';
