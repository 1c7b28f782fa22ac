// `capture-desk classify live --port` with the boards the README names, through the built CLI: a
// Nordic data-forwarder board (nordic-board.mjs on a PTY) is told from its stream as `record serial`
// tells it, or forced with the same --mode, and runs at the rate the board says; a board with the
// platform's AT firmware, which does not stream, is refused with what to do instead.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { atBoard, nordicBoard } from '../support/boards/board-on-pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';
import { startClassifyLive } from '../support/live-cli.js';
import { PRESETS, writeTestModel } from '../support/models/test-model.mjs';

const cleanups = useCleanups();
// The gesture model at 100 Hz (200 rows a window): a Nordic board says its rate in whole hertz.
const G100 = { ...PRESETS.gestureNew, frequency: 100, frameSampleCount: 200 };

let data: string;
beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), 'cd-classify-boards-'));
  data = join(root, 'data');
  const r = await runCli(['model', 'add', (await writeTestModel(join(root, 'g100'), G100)).dir, '--name', 'g100', '--data-dir', data]);
  if (r.code !== 0) throw new Error(`model add: ${r.stderr}`);
}, 60_000);

describe('capture-desk classify live --port: a Nordic data forwarder board', () => {
  it.each([[[] as string[]], [['--mode', 'nordic']]])('classifies it with its own names and rate (%j): a verdict every 500 ms of its samples', async (mode) => {
    const { pty } = await nordicBoard(cleanups, ['--rate', '100', '--channels', '3', '--si-every-ms', '1000']);
    const run = startClassifyLive(cleanups, ['--model', 'g100', '--port', pty.hostPath, ...mode, '--seconds', '4', '--data-dir', data]);
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stderr()).toContain(`${pty.hostPath}: 3 axes (ax, ay, az) at 100.00 Hz (the board's own: Nordic data forwarder).`);
    const verdicts = run.verdicts();
    expect(verdicts.length).toBeGreaterThanOrEqual(2);
    // Counted in the board's samples at its rate from its first one (rows read while the stream was
    // told apart count too): a window ends on a row, 200 or more in, then every 50 rows.
    const first = verdicts[0]!.t_ms;
    expect(first).toBeGreaterThanOrEqual(2000);
    expect(first % 10).toBe(0);
    expect(verdicts.map((v) => v.t_ms)).toEqual(verdicts.map((_, j) => first + 500 * j));
    for (const v of verdicts) expect(['idle', 'wave']).toContain(v.label);
    expect(run.lines.at(-1)).toMatchObject({ summary: true, windows: verdicts.length });
  }, 60_000);

  it('--mode means what it means for record serial; "at" and anything else are refused before a port opens', async () => {
    const at = await runCli(['classify', 'live', '--model', 'g100', '--port', '/dev/null', '--mode', 'at', '--data-dir', data]);
    expect(at.code).toBe(2);
    expect(at.stderr).toContain('--mode at: the platform\'s official firmware (AT) records a sample when asked and does not stream, so it cannot be classified live.');
    expect(at.stderr).toContain('Run "capture-desk classify live --help" for usage.');
    const odd = await runCli(['classify', 'live', '--model', 'g100', '--port', '/dev/null', '--mode', 'magic', '--data-dir', data]);
    expect(odd.code).toBe(2);
    expect(odd.stderr).toContain('--mode must be "auto", "lines" or "nordic"; got "magic".');
    const mic = await runCli(['classify', 'live', '--model', 'g100', '--microphone', '--mode', 'nordic', '--data-dir', data]);
    expect(mic.code).toBe(2);
    expect(mic.stderr).toContain('--mode goes with --port (a board), not with --microphone.');
    const help = await runCli(['classify', 'live', '--help']);
    expect(help.stdout).toMatch(/--port PATH +a streaming board .*: one printing numbers, one reading\n +per line, or one running Nordic's data forwarder\./);
    expect(help.stdout).toMatch(/--mode auto\|lines\|nordic\n/);
  });
});

describe('capture-desk classify live --port: a board with the platform\'s AT firmware', () => {
  it('is silent until asked, which classify live says, with how to classify its data instead (exit 1)', async () => {
    const board = await atBoard(cleanups);
    const r = await runCli(['classify', 'live', '--model', 'g100', '--port', board.pty.hostPath, '--seconds', '3', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`A board with the platform's official firmware (AT) says nothing until asked and does not stream: record a sample from it ("capture-desk record serial --port ${board.pty.hostPath}"), then classify it ("capture-desk samples classify ID --model NAME").`);
  }, 30_000);
});
