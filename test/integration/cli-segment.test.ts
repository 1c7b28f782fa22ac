import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spokenTake, roomTone, type SpokenTake } from '../support/audio/speech.js';
import { decodeAcquisition } from '../../src-main/core/samples/formats/acquisition.js';
import { runCli } from '../support/cli.js';
import { gestureTake } from '../support/gestures.js';
import { encodeCbor, sensorDoc } from '../support/ingestion-server/fixtures.js';

// `samples import` of single files and `samples split --auto` on real signals: words spoken by
// espeak-ng over room noise and mains hum, and gestures on a noisy accelerometer.

type Line = Record<string, unknown>;
const jsonLines = (text: string): Line[] => text.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
const WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'stop', 'go', 'one', 'three', 'off', 'seven'];
const GAPS_MS = [900, 600, 1500, 700, 1100, 650, 2000, 800, 1200, 600, 1000];

// Each test runs the CLI several times: generous on a loaded machine.
describe('capture-desk samples split --auto on spoken words', { timeout: 60_000 }, () => {
  let root: string;
  let take: SpokenTake;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'cd-segment-'));
    await mkdir(join(root, 'take'));
    take = await spokenTake(join(root, 'take'), WORDS, GAPS_MS);
  }, 60_000);

  it('imports the take as one sample and cuts one 1 s window around each word, the whole word inside', async () => {
    const data = join(root, 'data-words');
    const imp = await runCli(['samples', 'import', take.file, '--label', 'keyword', '--category', 'testing', '--json', '--data-dir', data]);
    expect(imp.code, imp.stderr).toBe(0);
    const [original] = jsonLines(imp.stdout);
    expect(original).toMatchObject({ name: 'take.wav', kind: 'audio', label: 'keyword', category: 'testing', length_ms: take.lengthMs, id: expect.any(String), file: expect.stringContaining(data) });

    const dry = await runCli(['samples', 'split', String(original!.id), '--auto', '--dry-run', '--data-dir', data]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(jsonLines(dry.stdout)).toHaveLength(WORDS.length);
    expect(dry.stderr).toMatch(/12 events in "take.wav".*dry run, nothing written/);
    expect(jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout)).toHaveLength(1);

    const r = await runCli(['samples', 'split', String(original!.id), '--auto', '--json', '--data-dir', data]);
    expect(r.code, r.stderr).toBe(0);
    const windows = jsonLines(r.stdout);
    expect(windows).toHaveLength(WORDS.length);
    windows.forEach((w, i) => {
      const word = take.words[i]!;
      expect(Number(w.end_ms) - Number(w.start_ms)).toBeCloseTo(1000, 6);
      expect(w.start_ms, `window ${i} starts after "${word.word}" begins`).toBeLessThanOrEqual(word.startMs);
      expect(w.end_ms, `window ${i} ends before "${word.word}" ends`).toBeGreaterThanOrEqual(word.endMs);
    });
    expect(r.stderr).toMatch(/wrote 12 samples of 1000 ms; the original is kept/);

    const listed = jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout);
    expect(listed).toHaveLength(WORDS.length + 1);
    const made = listed.filter((s) => s.derived_from === original!.id);
    expect(made.map((s) => s.id).sort()).toEqual(windows.map((w) => w.id).sort());
    for (const s of made) expect(s).toMatchObject({ kind: 'audio', label: 'keyword', category: 'testing', length_ms: 1000, derived_by: 'split' });
    expect((await readdir(join(data, 'samples'))).filter((f) => f.endsWith('.wav'))).toHaveLength(WORDS.length + 1);
  });

  it('a higher threshold keeps only the louder words; the window length is the one asked for', async () => {
    const data = join(root, 'data-threshold');
    const [original] = jsonLines((await runCli(['samples', 'import', take.file, '--data-dir', data])).stdout);
    const all = await runCli(['samples', 'split', String(original!.id), '--auto', '--dry-run', '--window-ms', '800', '--data-dir', data]);
    expect(all.code, all.stderr).toBe(0);
    for (const w of jsonLines(all.stdout)) expect(Number(w.end_ms) - Number(w.start_ms)).toBeCloseTo(800, 6);
    // Without --window-ms: the project window from the app's settings.
    await writeFile(join(data, 'settings.json'), JSON.stringify({ projectWindowMs: 1200 }));
    const project = await runCli(['samples', 'split', String(original!.id), '--auto', '--dry-run', '--data-dir', data]);
    expect(project.code, project.stderr).toBe(0);
    for (const w of jsonLines(project.stdout)) expect(Number(w.end_ms) - Number(w.start_ms)).toBeCloseTo(1200, 6);
    // The words peaking at −10 dBFS (every third) rise ≈ 19 dB over this room, the others ≈ 13–16 dB.
    const strict = await runCli(['samples', 'split', String(original!.id), '--auto', '--dry-run', '--threshold', '8.5', '--data-dir', data]);
    expect(strict.code, strict.stderr).toBe(0);
    const loud = take.words.filter((_, i) => i % 3 === 0);
    const found = jsonLines(strict.stdout);
    expect(found).toHaveLength(loud.length);
    found.forEach((w, i) => expect([Number(w.start_ms) <= loud[i]!.startMs, Number(w.end_ms) >= loud[i]!.endMs]).toEqual([true, true]));
  });

  it('refuses room noise with a loud click, a window longer than the sample and an unknown id, with exit codes', async () => {
    const data = join(root, 'data-errors');
    await mkdir(join(root, 'room'));
    const room = await roomTone(join(root, 'room'), 5000, { clickAtMs: 2500 });
    const [s] = jsonLines((await runCli(['samples', 'import', room, '--data-dir', data])).stdout);
    const none = await runCli(['samples', 'split', String(s!.id), '--auto', '--data-dir', data]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no events found above the noise floor; lower the threshold');
    expect(none.stdout).toBe('');

    const long = await runCli(['samples', 'split', String(s!.id), '--auto', '--window-ms', '6000', '--data-dir', data]);
    expect(long.code).toBe(1);
    expect(long.stderr).toMatch(/5000 ms long, shorter than one window of 6000 ms/);

    const unknown = await runCli(['samples', 'split', 'no-such-id', '--auto', '--data-dir', data]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No sample with id no-such-id/);

    const usage = await runCli(['samples', 'split', String(s!.id), '--auto', '--threshold', '0.5', '--data-dir', data]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--threshold .* must be above 1/);
    expect((await runCli(['samples', 'split', String(s!.id), '--data-dir', data])).code).toBe(2);
    // Nothing was written by any of them.
    expect(jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout)).toHaveLength(1);
  });
});

describe('capture-desk samples split --auto on gestures', { timeout: 60_000 }, () => {
  const plan = [
    { kind: 'shake' as const, atMs: 3000, ms: 900 },
    { kind: 'wave' as const, atMs: 7500, ms: 1200 },
    { kind: 'tilt' as const, atMs: 12_000, ms: 1000 },
    { kind: 'shake' as const, atMs: 16_200, ms: 700 },
    { kind: 'tilt' as const, atMs: 21_000, ms: 1400 },
    { kind: 'wave' as const, atMs: 26_500, ms: 1000 },
  ];
  const take = gestureTake(plan, 31_000);

  async function checkSplit(data: string, id: string, expectLabel: string, metadata: Record<string, string>) {
    const r = await runCli(['samples', 'split', id, '--auto', '--window-ms', '2000', '--data-dir', data]);
    expect(r.code, r.stderr).toBe(0);
    const windows = jsonLines(r.stdout);
    expect(windows).toHaveLength(plan.length);
    windows.forEach((w, i) => {
      const g = take.gestures[i]!;
      expect(w.start_ms, `window ${i} starts after the ${g.kind} begins`).toBeLessThanOrEqual(g.startMs);
      expect(w.end_ms, `window ${i} ends before the ${g.kind} ends`).toBeGreaterThanOrEqual(g.endMs);
      expect(Number(w.end_ms) - Number(w.start_ms)).toBe(2000);
    });
    const made = jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout).filter((s) => s.derived_from === id);
    expect(made).toHaveLength(plan.length);
    for (const s of made) expect(s).toMatchObject({ kind: 'sensor', label: expectLabel, category: 'training', length_ms: 2000, metadata });
  }

  it('finds a shake, a wave and a tilt on a CBOR sample imported with its info.labels (label and metadata carried over)', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-gestures-'));
    await mkdir(join(root, 'export', 'training'), { recursive: true });
    await writeFile(join(root, 'export', 'training', 'moves.cbor'), encodeCbor(sensorDoc(take.values, take.intervalMs)));
    await writeFile(join(root, 'export', 'info.labels'), JSON.stringify({ version: 1, files: [{ path: 'training/moves.cbor', category: 'training', label: { type: 'label', label: 'gesture' }, metadata: { subject: 'ana' } }] }));
    const data = join(root, 'data');
    const imp = await runCli(['samples', 'import', join(root, 'export'), '--data-dir', data]);
    expect(imp.code, imp.stderr).toBe(0);
    const [s] = jsonLines(imp.stdout);
    await checkSplit(data, String(s!.id), 'gesture', { subject: 'ana' });
  });

  it('does the same for the readings as a CSV file and as a single CBOR file, imported together', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-gestures-csv-'));
    const csv = join(root, 'moves.csv');
    await writeFile(csv, 'timestamp,accX (m/s2),accY (m/s2),accZ (m/s2)\n' + take.values.map((v, i) => `${i * take.intervalMs},${v.map((x) => x.toFixed(4)).join(',')}`).join('\n') + '\n');
    const cbor = join(root, 'moves2.cbor');
    await writeFile(cbor, encodeCbor(sensorDoc(take.values, take.intervalMs)));
    const data = join(root, 'data');
    const imp = await runCli(['samples', 'import', csv, cbor, '--label', 'gesture', '--data-dir', data]);
    expect(imp.code, imp.stderr).toBe(0);
    const added = jsonLines(imp.stdout);
    expect(added.map((s) => [s.name, s.label, s.length_ms])).toEqual([['moves.cbor', 'gesture', 31_000], ['moves2.cbor', 'gesture', 31_000]]);
    expect(imp.stderr).toMatch(/Imported 2 samples/);
    for (const s of added) await checkSplit(data, String(s.id), 'gesture', {});
  });

  it('leaves out a gesture at the very start unless asked to keep it, then shifts its window inside', async () => {
    const early = gestureTake([{ kind: 'shake', atMs: 150, ms: 600 }, { kind: 'wave', atMs: 5000, ms: 1000 }], 9000);
    const root = await mkdtemp(join(tmpdir(), 'cd-gestures-edge-'));
    const file = join(root, 'early.cbor');
    await writeFile(file, encodeCbor(sensorDoc(early.values, early.intervalMs)));
    const data = join(root, 'data');
    const [s] = jsonLines((await runCli(['samples', 'import', file, '--data-dir', data])).stdout);
    const dropped = await runCli(['samples', 'split', String(s!.id), '--auto', '--dry-run', '--window-ms', '2000', '--data-dir', data]);
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(jsonLines(dropped.stdout).map((w) => w.shifted)).toEqual([false]);
    expect(dropped.stderr).toMatch(/1 too close to an end left out \(--keep-edges keeps them\)/);
    const kept = await runCli(['samples', 'split', String(s!.id), '--auto', '--keep-edges', '--window-ms', '2000', '--data-dir', data]);
    expect(kept.code, kept.stderr).toBe(0);
    const windows = jsonLines(kept.stdout);
    expect(windows.map((w) => [w.start_ms, w.end_ms, w.shifted])).toEqual([[0, 2000, true], [expect.any(Number), expect.any(Number), false]]);
    // Shifted, not padded: the new sample holds 2 s of what was recorded, from the first reading.
    const first = jsonLines((await runCli(['samples', 'list', '--json', '--data-dir', data])).stdout).find((x) => x.id === windows[0]!.id)!;
    const doc = decodeAcquisition(await readFile(String(first.file)), 'cbor');
    expect(doc.payload.values).toHaveLength(200);
    expect(doc.payload.values[0]).toEqual(early.values[0]);
  });

  it('reports a file it cannot read among others, imports the rest and exits 1', async () => {
    const root = await mkdtemp(join(tmpdir(), 'cd-import-bad-'));
    const good = join(root, 'still.cbor');
    await writeFile(good, encodeCbor(sensorDoc([[0, 0, 9.81], [0, 0, 9.8]])));
    const bad = join(root, 'broken.wav');
    await writeFile(bad, 'not a wav');
    const data = join(root, 'data');
    const r = await runCli(['samples', 'import', good, bad, '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(jsonLines(r.stdout).map((s) => s.name)).toEqual(['still.cbor']);
    expect(r.stderr).toMatch(/not imported .*broken\.wav: "broken\.wav" is not a readable WAV recording/);
    expect(r.stderr).toMatch(/Imported 1 samples, 1 not imported/);
  });
});
