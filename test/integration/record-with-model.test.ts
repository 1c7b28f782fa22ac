// A take recorded while a model runs on its source keeps that model's verdicts with the sample,
// computed from the take's own rows (windows at i × stride from its start), found by the
// "Model says" filter like the platform's results: through the core, a PTY level board and the
// gesture test model in its worker thread.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Classification, RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import type { LiveModelStatus } from '../../src-main/core/contract/model-schema.js';
import { socatAvailable } from '../support/boards/pty.js';
import { startCore, useCleanups } from '../support/core-harness.js';
import { levelBoard } from '../support/live-cli.js';
import { PRESETS, writeTestModel } from '../support/models/test-model.mjs';
import { useModelSpawner } from '../support/models/worker.js';
import { useTempDir } from '../support/temp-dir.js';

const cleanups = useCleanups();
const root = useTempDir('cd-record-model-', { keep: true });
const spawn = useModelSpawner();

describe.skipIf(!socatAvailable())('recording while a model runs', { timeout: 60_000 }, () => {
  it('keeps the model\'s windows with the take, from its own rows, and the "Model says" filter finds it', async () => {
    const { call, saved } = await startCore(cleanups, { modelWorker: spawn() });
    await call('models.add', { path: (await writeTestModel(join(root(), 'export'), PRESETS.gestureNew)).dir, name: 'gesture' });
    // A high level all along: every window of the take says wave, while its label says idle.
    const board = await levelBoard(cleanups, { level: 5 });
    const sourceId = `serial:${board.pty.hostPath}`;
    await call('stream.start', { sourceId });
    const live = await call<LiveModelStatus>('model.live.start', { sourceId, model: 'gesture', strideMs: 500 });
    expect(live.state).toBe('running');

    const started = await call<RecordingStatus>('record.start', { sourceIds: [sourceId], label: 'idle', category: 'training', lengthMs: 4000, queue: false });
    const done = await saved(started.sessionId, 30_000);
    expect(done.state).toBe('saved');
    const id = done.sampleIds[0]!;

    // The take is classified once it is saved: wait for the kept result.
    let kept: Classification | null = null;
    const end = Date.now() + 30_000;
    while (!kept && Date.now() < end) {
      kept = await call<Classification | null>('samples.classification', { id, model: 'gesture' });
      if (!kept) await new Promise((r) => setTimeout(r, 100));
    }
    expect(kept, 'no local result kept for the take').not.toBeNull();
    const c = kept!;
    expect(c).toMatchObject({ sampleId: id, platformSampleId: null, local: { model: 'gesture' }, windowSizeMs: 2000, windowIncreaseMs: 500 });
    const sample = (await call<{ samples: Sample[] }>('samples.list', {})).samples.find((s) => s.id === id)!;
    const lengthMs = sample.lengthMs!;
    expect(lengthMs).toBeGreaterThan(3000);
    const windows = c.blocks[0]!.windows;
    // Windows at i × 500 ms from the take's start, each a whole 2000 ms inside the take.
    expect(windows.length).toBe(Math.floor((lengthMs - 2000) / 500 + 1e-9) + 1);
    windows.forEach((w, i) => expect(w).toMatchObject({ index: i, startMs: i * 500, endMs: i * 500 + 2000, label: 'wave' }));
    expect(c.blocks[0]!.summary).toMatchObject({ expected: 'idle', agree: 0, windows: windows.length });

    // "Model says": the filter finds the take by what the local model said, and the model disagrees with its label.
    const says = await call<{ total: number; samples: Sample[] }>('samples.query', { filter: { modelSays: ['wave'] }, limit: 10 });
    expect(says.samples.map((s) => s.id)).toEqual([id]);
    const disagrees = await call<{ total: number; samples: Sample[] }>('samples.query', { filter: { modelDisagrees: true }, limit: 10 });
    expect(disagrees.samples.map((s) => s.id)).toEqual([id]);
    await call('model.live.stop', { sourceId });
  });
});
