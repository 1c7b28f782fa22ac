import { expect } from 'vitest';
import { DEMO_SOURCE_ID, type CallResult, type MethodInput, type MethodName } from '../../src-main/core/contract/contract.js';
import { encodeCbor, sensorDoc } from './ingestion-server/fixtures.js';

/**
 * One valid input per contract method. Typed as a complete record, so a method added to the
 * contract without a sample here fails to compile, and the "every method through every binding"
 * tests keep covering the whole contract.
 */
export const sampleInputs: { [M in MethodName]: MethodInput<M> } = {
  'app.info': {},
  'app.diagnostics': {},
  'manual.index': {},
  'manual.page': { name: 'getting-started' },
  'settings.get': {},
  'settings.set': { deviceName: 'bench-01' },
  'serial.listPorts': {},
  'sources.list': {},
  'serial.addPath': { path: '/dev/capture-desk-no-such-port' },
  'serial.removePath': { path: '/dev/capture-desk-no-such-port' },
  'serial.getSettings': { path: '/dev/ttyACM0' },
  'serial.setSettings': { path: '/dev/ttyACM0', settings: { baudRate: 921600 } },
  'stream.start': { sourceId: DEMO_SOURCE_ID, rateHz: 200 },
  'stream.stop': { sourceId: DEMO_SOURCE_ID },
  'samples.list': { limit: 10 },
  'samples.query': { filter: { text: 'idle', labels: ['idle', null], states: ['local'] }, sort: { by: 'name', dir: 'asc' }, limit: 10 },
  'samples.idsMatching': { filter: { categories: ['training'] } },
  'samples.facets': {},
  'samples.bulk': { filter: { ids: ['no-such-sample'] }, action: { type: 'label', label: 'idle' }, dryRun: true },
  'samples.update': { ids: ['no-such-sample'], label: 'idle' },
  'samples.delete': { ids: ['no-such-sample'] },
  'samples.addFile': { name: 'idle.1.cbor', bytes: new Uint8Array(encodeCbor(sensorDoc())), category: 'training' },
  'samples.addPaths': { paths: ['/capture-desk/no-such-file.cbor'], category: 'training' },
  'samples.move': { id: 'no-such-sample', newCategory: 'testing' },
  'samples.checkQuality': { ids: ['no-such-sample'] },
  'record.start': { sourceIds: ['no-such-source'], label: 'idle', category: 'training', lengthMs: 1000 },
  'record.stop': { sessionId: 'no-such-session' },
  'record.active': {},
  'record.mark': { sessionId: 'no-such-session', label: 'tap' },
  'at.readBoard': { path: '/dev/no-such-board' },
  'at.record': { path: '/dev/no-such-board', lengthMs: 1000, label: 'idle', category: 'training' },
  'project.check': {},
  'remote.list': {},
  'remote.setEnabled': { sourceId: 'serial:/dev/capture-desk-no-such-port', enabled: false },
  'remote.rename': { sourceId: 'serial:/dev/capture-desk-no-such-port', name: 'bench board' },
  'queue.status': {},
  'queue.enqueue': { ids: ['no-such-sample'] },
  'queue.dequeue': { ids: ['no-such-sample'] },
  'queue.pause': {},
  'queue.resume': {},
  'uploads.pending': { limit: 50 },
  'keys.status': {},
  'keys.set': { kind: 'api-key', key: 'ei_test_key' },
  'keys.clear': { kind: 'hmac-key' },
  'dataset.summary': {},
  'audio.settings': {},
  'audio.status': {},
  'audio.setSettings': { preRollMs: 500 },
  'watch.list': {},
  'watch.add': { path: '/nonexistent/capture-desk-watch', category: 'training', label: { mode: 'filename' } },
  'watch.remove': { id: 'no-such-folder' },
  'watch.setEnabled': { id: 'no-such-folder', enabled: false },
  'watch.pending': { id: 'no-such-folder' },
  'watch.importPending': { id: 'no-such-folder' },
  'samples.overview': { id: 'no-such-sample', width: 800 },
  'samples.range': { id: 'no-such-sample', startMs: 0, endMs: 1000, width: 800 },
  'samples.spectrogram': { id: 'no-such-sample', frames: 200 },
  'samples.audio': { id: 'no-such-sample' },
  'samples.detectEvents': { id: 'no-such-sample', params: { threshold: 4 } },
  'samples.setRate': { id: 'no-such-sample', frequencyHz: 100 },
  'samples.crop': { id: 'no-such-sample', startMs: 0, endMs: 500 },
  'samples.split': { id: 'no-such-sample', jobId: 'job-1', split: { mode: 'fixed', windowMs: 1000 } },
  'samples.export': { jobId: 'job-2', ids: ['no-such-sample'] },
  'samples.cancel': { jobId: 'job-1' },
  'samples.classify': { id: 'no-such-sample', variant: 'float32' },
  'samples.classification': { id: 'no-such-sample', impulseId: null },
  'samples.cancelClassify': { id: 'no-such-sample' },
  'samples.classifyLocal': { id: 'no-such-sample', model: 'no-such-model', strideMs: 500, threshold: 0.7 },
  'samples.classifyOptions': {},
  'models.list': {},
  'models.unreadable': {},
  'models.add': { path: '/nonexistent/capture-desk-model.zip' },
  'models.addBytes': { fileName: 'gestures.zip', bytes: new Uint8Array([0x50, 0x4b, 5, 6]) },
  'models.remove': { name: 'no-such-model' },
  'models.setAxes': { name: 'no-such-model', axes: 3 },
  'models.test': { jobId: 'test-1', models: ['no-such-model'], filter: { categories: ['testing'] } },
  'model.live.start': { sourceId: 'serial:/dev/capture-desk-no-such-port', model: 'no-such-model' },
  'model.live.stop': { sourceId: DEMO_SOURCE_ID },
  'model.live.status': {},
  'samples.setClassifyOptions': { afterUpload: 'testing' },
  'samples.modelSays': { ids: ['no-such-sample'] },
  'samples.collectSummary': {},
};

/**
 * The call reached its handler: it either succeeded or failed for a reason of the core's own
 * (e.g. NotFound for the made-up sample id), not because the binding lost or mangled it.
 */
export function expectReached(r: unknown, method: string): void {
  const result = r as CallResult;
  if (result.ok) return;
  // A handler may refuse what it was given (a zip that is not a model export) with InvalidArguments
  // too; the dispatcher's own refusal of a mangled input is the one that says "Invalid arguments for".
  if (result.error.code === 'InvalidArguments' && !result.error.message.startsWith('Invalid arguments for')) return;
  expect(['UnknownMethod', 'InvalidArguments', 'MalformedMessage', 'Internal', 'Unauthorized'], `${method}: ${result.error.message}`).not.toContain(result.error.code);
}
