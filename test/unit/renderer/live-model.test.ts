// The live view's model state against a fake Api that answers like the core: threshold, smoothing,
// bounded buffers, drawing once per frame and announcing only a change of the shown label
// (test/e2e/live-model.spec.ts runs it against the real core, a PTY board and Chromium).
import { describe, expect, it } from 'vitest';
import type { LiveModelStatus, MethodName, ModelVerdict } from '../../../src-main/core/contract/contract.js';
import { ApiError } from '../../../src-renderer/lib/api/client.js';
import { majority, smoothed } from '../../../src-renderer/lib/models/live-verdicts.js';
import { stripPieces } from '../../../src-renderer/lib/models/strip-layout.js';
import { KEEP_MS, LiveModelState, MAX_PENDING, MAX_WINDOWS } from '../../../src-renderer/lib/state/live-model.svelte.js';
import { fakeApi, type Handler } from '../../support/renderer/fake-api.js';

/** A frame scheduler the test runs by hand, counting what was asked of it. */
function frames() {
  const queue: Array<() => void> = [];
  return {
    schedule: (run: () => void) => void queue.push(run),
    get asked() {
      return queue.length;
    },
    run() {
      for (const f of queue.splice(0)) f();
    },
  };
}

const status = (o: Partial<LiveModelStatus> = {}): LiveModelStatus => ({
  sourceId: 'serial:/dev/pts/3', model: 'gestures', modelHash: 'h', state: 'running', labels: ['idle', 'wave'],
  windowMs: 2000, strideMs: 500, threshold: 0.6, rateHz: 62.5, notes: [], windows: 0, skipped: 0, catching: null, error: null, ...o,
});

let nextIndex = 0;
/** A window ending at `endMs` whose top label is `label` with `confidence`. */
function verdict(label: string, confidence: number, endMs = 2000 + nextIndex * 500): ModelVerdict {
  const other = label === 'idle' ? 'wave' : 'idle';
  return { index: nextIndex++, startMs: endMs - 2000, endMs, label, confidence, scores: { [label]: confidence, [other]: 1 - confidence }, anomaly: null, uncertain: confidence < 0.6, classifyMs: 0.1 };
}

function setup(handlers: Partial<Record<MethodName, Handler>> = {}) {
  nextIndex = 0;
  const f = fakeApi({ 'model.live.status': () => [], ...handlers });
  const fr = frames();
  const lm = new LiveModelState(f.api, fr.schedule, () => 0);
  const clock: { rowsReceived: number; streamRows: number | null } = { rowsReceived: 0, streamRows: null };
  const off = lm.follow('serial:/dev/pts/3', clock);
  return { ...f, fr, lm, clock, off };
}

/** Pushes one batch, runs the frame, returns what is shown. */
function show(s: ReturnType<typeof setup>, ...vs: ModelVerdict[]) {
  s.lm.push(vs);
  s.fr.run();
  return s.lm.current;
}

describe('majority and smoothing', () => {
  it('takes the most votes; a tie goes to the most recent of the tied; uncertain is a vote of its own', () => {
    expect(majority(['idle', 'wave', 'idle'])).toBe('idle');
    expect(majority(['idle', 'wave'])).toBe('wave');
    expect(majority(['wave', 'idle', 'idle', 'wave'])).toBe('wave');
    expect(majority([null, null, 'wave'])).toBeNull();
  });

  it('shows the mean confidence of the windows that voted for the shown label', () => {
    const w = (top: string, confidence: number, uncertain = false) => ({ top, confidence, uncertain });
    expect(smoothed([w('idle', 0.9), w('idle', 0.8), w('wave', 0.95)])).toEqual({ shown: 'idle', shownConfidence: expect.closeTo(0.85, 6) });
    expect(smoothed([w('idle', 0.55, true)])).toEqual({ shown: null, shownConfidence: 0.55 });
  });
});

describe('the live view\'s model state', () => {
  it('draws once per frame whatever the number of batches, never per verdict', () => {
    const s = setup();
    s.lm.push([verdict('idle', 0.95)]);
    s.lm.push([verdict('idle', 0.95), verdict('wave', 0.95)]);
    s.lm.push([verdict('wave', 0.95)]);
    expect(s.fr.asked).toBe(1);
    expect(s.lm.windows).toHaveLength(0); // nothing shown before the frame
    const before = s.lm.version;
    s.fr.run();
    expect(s.lm.windows).toHaveLength(4);
    expect(s.lm.version).toBe(before + 1);
    expect(s.lm.current?.shown).toBe('wave');
  });

  it('a window under the threshold is uncertain; a new threshold judges the windows kept again', () => {
    const s = setup();
    expect(show(s, verdict('idle', 0.55))?.shown).toBeNull();
    expect(s.lm.announcement).toBe('Model: uncertain');
    s.lm.setThreshold(0.5);
    expect(s.lm.current?.shown).toBe('idle');
    expect(s.lm.windows.every((w) => !w.uncertain)).toBe(true);
    expect(s.lm.announcement).toBe('Model: idle');
  });

  it('smoothing shows the majority of the last k windows, and bars their mean scores', () => {
    const s = setup();
    s.lm.setSmoothing(3);
    expect(show(s, verdict('idle', 0.95), verdict('idle', 0.95), verdict('wave', 0.95))?.shown).toBe('idle');
    expect(s.lm.current?.top).toBe('wave'); // the window itself said wave
    expect(s.lm.bars.find((b) => b.label === 'wave')?.value).toBeCloseTo((0.05 + 0.05 + 0.95) / 3, 6);
    expect(show(s, verdict('wave', 0.95))?.shown).toBe('wave');
    // Off again: each window stands alone.
    s.lm.setSmoothing(1);
    expect(s.lm.windows.map((w) => w.shown)).toEqual(['idle', 'idle', 'wave', 'wave']);
  });

  it('announces the shown label only when it changes', () => {
    const s = setup();
    const heard: string[] = [];
    let last = '';
    for (const l of ['idle', 'idle', 'idle', 'wave', 'wave', 'idle', 'idle']) {
      show(s, verdict(l, 0.95));
      if (s.lm.announcement !== last) heard.push((last = s.lm.announcement));
    }
    expect(heard).toEqual(['Model: idle', 'Model: wave', 'Model: idle']);
  });

  it('keeps a bounded number of windows and of stream time, and of verdicts waiting for a frame', () => {
    const s = setup();
    // 20 ms apart: the count bounds them before the time does.
    for (let i = 0; i < 30; i++) s.lm.push(Array.from({ length: 100 }, (_, k) => verdict('idle', 0.95, 2000 + (i * 100 + k) * 20)));
    expect(s.fr.asked).toBe(1);
    s.fr.run();
    expect(s.lm.windows).toHaveLength(MAX_WINDOWS);
    expect(s.lm.windows.at(-1)!.index).toBe(2999);
    // 2 s apart: the time bounds them.
    for (let i = 0; i < 100; i++) show(s, verdict('wave', 0.95, 100_000 + i * 2000));
    const ends = s.lm.windows.map((w) => w.endMs);
    expect(ends.at(-1)! - ends[0]!).toBeLessThanOrEqual(KEEP_MS);
    expect(s.lm.windows.length).toBeLessThan(20);
    // A hidden tab gets no frames: what waits is bounded too.
    s.lm.push(Array.from({ length: MAX_PENDING + 500 }, (_, k) => verdict('idle', 0.95, 400_000 + k)));
    s.fr.run();
    expect(s.lm.windows.at(-1)!.endMs).toBe(400_000 + MAX_PENDING + 499);
  });

  it('starts with the choices and the catch request; the core\'s refusal is kept in its words', async () => {
    let refuse = false;
    const s = setup({
      'model.live.start': () => {
        if (refuse) throw new ApiError({ code: 'InvalidArguments', message: 'Model "gestures" takes 3 axes; /dev/pts/3 gives 2 (a, b).' });
        return status({ notes: ['The source\'s axes go to the model in order: …'] });
      },
    });
    s.lm.model = 'gestures';
    s.lm.strideMs = 250;
    s.lm.setThreshold(0.7);
    // The view has the last 1000 of the stream's 4000 rows (the board ran a minute before it was followed).
    s.clock.rowsReceived = 1000;
    s.clock.streamRows = 4000;
    const c = { label: 'idle', category: 'training' as const, marginMs: 500, perMinute: 20, queue: false };
    expect(await s.lm.start({ catch: c })).toBe(true);
    expect(s.calls.at(-1)).toEqual({ method: 'model.live.start', input: { sourceId: 'serial:/dev/pts/3', model: 'gestures', strideMs: 250, threshold: 0.7, catch: c } });
    expect(s.lm.running).toBe(true);
    expect(s.lm.notes).toEqual(['The source\'s axes go to the model in order: …']);
    // Verdicts count from the stream's first reading: 64 s at 62.5 Hz is row 4000, the view's newest.
    expect(s.lm.rowOf(64_000)).toBe(1000);
    expect(s.lm.rowOf(2000)).toBe(1000 - 4000 + 125);

    refuse = true;
    expect(await s.lm.start()).toBe(false);
    expect(s.lm.refusal).toBe('Model "gestures" takes 3 axes; /dev/pts/3 gives 2 (a, b).');
  });

  it('follows its source\'s status and verdicts only, lists models on other sources, and lets go of every event', async () => {
    const s = setup();
    expect(s.listening()).toBe(2);
    s.emit('model.live', status({ sourceId: 'serial:/dev/pts/9', model: 'other' }));
    expect(s.lm.elsewhere.map((x) => x.model)).toEqual(['other']);
    s.emit('model.verdicts', { sourceId: 'serial:/dev/pts/9', model: 'other', verdicts: [verdict('wave', 0.9)] });
    expect(s.fr.asked).toBe(0);
    // Found running (started elsewhere): its choices show, verdicts line up from what arrives.
    s.clock.rowsReceived = 500;
    s.clock.streamRows = 700; // 200 rows came before this view followed the stream, or in batches it missed
    s.emit('model.live', status({ threshold: 0.8, catching: { label: 'idle', caught: 2, summary: 'caught 2: 2 said wave', capped: 0, lastSampleId: 's9' } }));
    expect(s.lm.model).toBe('gestures');
    expect(s.lm.threshold).toBe(0.8);
    expect(s.lm.catchOn).toBe(true);
    s.emit('model.verdicts', { sourceId: 'serial:/dev/pts/3', model: 'gestures', verdicts: [verdict('wave', 0.9, 4000)] });
    expect(s.lm.rowOf(4000)).toBe(50); // stream row 250, whenever its verdict came
    s.clock.rowsReceived = 540;
    s.clock.streamRows = 740;
    s.emit('model.verdicts', { sourceId: 'serial:/dev/pts/3', model: 'gestures', verdicts: [verdict('wave', 0.9, 4500)] });
    expect(s.lm.rowOf(4000)).toBe(50); // more rows move nothing
    // At the model's own rate (the one it measured), not the view's: 4000 ms at 62 Hz is row 248.
    s.emit('model.live', status({ threshold: 0.8, rateHz: 62 }));
    expect(s.lm.rowOf(4000)).toBe(540 - 740 + 248);
    s.fr.run();
    expect(s.lm.windows).toHaveLength(2);
    s.emit('model.live', status({ state: 'failed', error: 'The model stopped twice in a row (abort).' }));
    expect(s.lm.running).toBe(false);
    expect(s.lm.refusal).toBe('The model stopped twice in a row (abort).');
    s.off();
    expect(s.listening()).toBe(0);
  });

  it('lays each window out around its middle, edge to edge with its neighbours, leaving out what is off the strip', () => {
    const s = setup();
    // 496 and 512 ms apart (a stride of 31.25 rows is 31 or 32 rows); the last one far away.
    show(s, verdict('idle', 0.95, 2000), verdict('wave', 0.95, 2496), verdict('wave', 0.95, 3008), verdict('idle', 0.95, 30_000));
    // 1 px per 10 ms, 0 ms at x = 0, strip 400 px wide.
    const pieces = stripPieces(s.lm.windows, 500, 400, (ms) => ms / 10);
    expect(pieces.map((p) => [p.left, p.width, p.window.shown])).toEqual([
      [75, 50, 'idle'],
      [125, 50, 'wave'],
      [175, 51, 'wave'],
    ]);
  });
});
