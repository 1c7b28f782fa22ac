import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SerialPort } from 'serialport';
import { describe, expect, it } from 'vitest';
import { lineBoard } from '../support/boards/board-on-pty.js';
import { openPtyPair, type PtyPair } from '../support/boards/pty.js';
import { useCleanups } from '../support/cleanups.js';
import { runCli } from '../support/cli.js';
import { PRESETS, writeTestModel } from '../support/models/test-model.mjs';

// What `record serial` says and does when the port, the board or the flags are not what it
// expects: each run through the built CLI against a real pseudo-terminal (socat) or a real path.

const cleanups = useCleanups();
const dataDir = async () => join(await mkdtemp(join(tmpdir(), 'cd-rec-words-')), 'data');

/** A silent board: a PTY pair whose board end is held open and read, so every byte the host writes is seen. */
async function silentBoard(): Promise<{ pty: PtyPair; written: () => Buffer }> {
  const pty = await openPtyPair();
  cleanups.push(() => pty.close());
  const port = new SerialPort({ path: pty.boardPath, baudRate: 115200, autoOpen: false });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
  cleanups.push(() => new Promise<void>((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve())));
  const chunks: Buffer[] = [];
  port.on('data', (d: Buffer) => chunks.push(d));
  return { pty, written: () => Buffer.concat(chunks) };
}

describe('record serial on a silent board: only --mode auto writes to it', () => {
  it('--mode lines and --mode nordic send nothing while finding the rate, and do not speak of AT', async () => {
    for (const mode of ['lines', 'nordic']) {
      const { pty, written } = await silentBoard();
      const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--mode', mode, '--length-ms', '1000', '--data-dir', await dataDir()]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/nothing readable arrived at any baud rate \(tried 115200, 9600, /);
      expect(r.stderr).not.toMatch(/AT/);
      await new Promise((res) => setTimeout(res, 200)); // anything still in flight through socat
      expect(written().length, `${mode}: bytes written to the board: ${JSON.stringify(written().toString('latin1'))}`).toBe(0);
    }
  });

  it('classify live --mode lines sends nothing to a silent board either', async () => {
    const data = await dataDir();
    const model = await writeTestModel(join(data, '..', 'model'), PRESETS.gestureNew);
    expect((await runCli(['model', 'add', model.dir, '--name', 'g', '--data-dir', data])).code).toBe(0);
    const { pty, written } = await silentBoard();
    const r = await runCli(['classify', 'live', '--model', 'g', '--port', pty.hostPath, '--mode', 'lines', '--seconds', '2', '--data-dir', data]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/nothing readable arrived at any baud rate/);
    expect(r.stderr).not.toMatch(/AT/);
    await new Promise((res) => setTimeout(res, 200));
    expect(written().length, `bytes written to the board: ${JSON.stringify(written().toString('latin1'))}`).toBe(0);
  }, 60_000);

  it('--mode auto still asks the board whether it runs the platform\'s firmware (AT)', async () => {
    const { pty, written } = await silentBoard();
    const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--mode', 'auto', '--length-ms', '1000', '--data-dir', await dataDir()]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/and it did not answer AT commands at any of them/);
    expect(written().toString('latin1')).toContain('AT\r');
  });
});

describe('record serial --mode nordic on a board that is not Nordic', () => {
  it('says the board sends lines of numbers and which mode reads it, never "last: null"', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']);
    for (const baud of ['auto', '115200']) {
      const r = await runCli(['record', 'serial', '--port', pty.hostPath, '--mode', 'nordic', '--baud', baud, '--length-ms', '1000', '--data-dir', await dataDir()]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`${pty.hostPath} sends lines of numbers, not Nordic data-forwarder frames: record it with --mode lines or --mode auto`);
      expect(r.stderr).not.toMatch(/null|sends Nordic data-forwarder frames but/);
    }
  });
});

describe('record serial --port that is not a serial port', () => {
  it('a regular file or a folder is a usage mistake said as such (exit 2); a missing path points at devices serial; nothing is written', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-not-a-port-'));
    const file = join(dir, 'readings.txt');
    await writeFile(file, '1,2,3\n');
    const folder = join(dir, 'folder');
    await mkdir(folder);
    const data = await dataDir();
    const run = (port: string) => runCli(['record', 'serial', '--port', port, '--length-ms', '500', '--data-dir', data]);

    const f = await run(file);
    expect(f.code, f.stderr).toBe(2);
    expect(f.stderr).toContain(`--port ${file} is a regular file, not a serial port.`);
    expect(f.stderr).toContain('"capture-desk devices serial" lists the serial ports there are');

    const d = await run(folder);
    expect(d.code, d.stderr).toBe(2);
    expect(d.stderr).toContain(`--port ${folder} is a folder, not a serial port.`);

    const gone = await run(join(dir, 'ttyACM7'));
    expect(gone.code, gone.stderr).toBe(1);
    expect(gone.stderr).toContain(`No serial port at ${join(dir, 'ttyACM7')}. Is the board plugged in? Check the path: "capture-desk devices serial" lists the serial ports there are.`);

    // A device that opens but takes no baud rate: said in words, not as the system's ioctl error.
    const dev = await run('/dev/null');
    expect(dev.code, dev.stderr).toBe(1);
    expect(dev.stderr).toContain('/dev/null is not a serial port: it cannot be set to a baud rate.');
    for (const r of [f, d, gone, dev]) expect(r.stderr).not.toMatch(/ioctl|Error:|ENO/);
    expect(await readdir(dir)).toEqual(['folder', 'readings.txt']);
  });
});

describe('record serial --axes, --units and --sensor that do not fit', () => {
  it('names that do not match the board\'s columns are refused before the take (exit 1), saying how many it sends', async () => {
    const { pty } = await lineBoard(cleanups, ['--rate', '100']); // 3 values per line
    const data = await dataDir();
    const run = (...flags: string[]) => runCli(['record', 'serial', '--port', pty.hostPath, '--mode', 'lines', '--baud', '115200', '--length-ms', '500', ...flags, '--data-dir', data]);
    const fewer = await run('--axes', 'a,b');
    expect(fewer.code, fewer.stderr).toBe(1);
    expect(fewer.stderr).toContain(`--axes gives 2 names (a, b) but ${pty.hostPath} sends 3 values per line. Give 3 names, or leave --axes out to use the board's own. Nothing was recorded.`);
    const more = await run('--axes', 'a,b,c,d');
    expect(more.code, more.stderr).toBe(1);
    expect(more.stderr).toContain(`--axes gives 4 names (a, b, c, d) but ${pty.hostPath} sends 3 values per line.`);
    const units = await run('--units', 'g,g');
    expect(units.code, units.stderr).toBe(1);
    expect(units.stderr).toContain(`--units gives 2 units (g, g) but ${pty.hostPath} sends 3 values per line. Give one per axis (3), or leave --units out.`);
    for (const r of [fewer, more, units]) {
      expect(r.stdout).toBe(''); // no sample line: none was made
      expect(r.stderr).not.toMatch(/value3|Recording /);
    }
    // The same board with names that fit records as before.
    const fits = await run('--axes', 'a,b,c', '--units', 'g,g,g');
    expect(fits.code, fits.stderr).toBe(0);
    expect(fits.stderr).toContain('Detected 3 axes: a, b, c');
    const list = await runCli(['samples', 'list', '--json', '--data-dir', data]);
    expect(list.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('duplicate names, a --units count unlike --axes, --sensor outside AT and --axes/--units with AT are usage mistakes (exit 2)', async () => {
    for (const [flags, text] of [
      [['--axes', 'a,a,b'], '--axes names each axis once; "a" is given twice.'],
      [['--axes', 'a,b,c', '--units', 'g,g'], '--units gives 2 units for the 3 axes of --axes: give one per axis.'],
      [['--mode', 'lines', '--sensor', 'Accelerometer'], '--sensor chooses the sensor of a board running the platform\'s firmware: it works with --mode at (or auto), not with --mode lines'],
      [['--mode', 'nordic', '--sensor', 'Accelerometer'], 'not with --mode nordic'],
      [['--mode', 'at', '--axes', 'x,y'], '--axes names what a streaming board sends; a board with the platform\'s firmware (--mode at) names its sensors\' axes and units itself. Leave --axes out, and choose its sensor with --sensor.'],
      [['--mode', 'at', '--axes', 'x', '--units', 'g'], '--axes and --units name what a streaming board sends;'],
    ] as const) {
      const r = await runCli(['record', 'serial', '--port', '/dev/null', ...flags, '--data-dir', await dataDir()]);
      expect(r.code, `${flags.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });
});

describe('record serial --help', () => {
  it('has the -h, --help line the other commands\' helps have, and -h shows the same page', async () => {
    const help = await runCli(['record', 'serial', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/\n  -h, --help {11}show this help\n$/);
    expect(await runCli(['record', 'serial', '-h'])).toEqual(help);
  });
});

describe('samples set-rate on a sample that has its rate', () => {
  it('says the rate an imported CSV sample has, in words, never "?"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cd-set-rate-words-'));
    const csv = join(dir, 'idle.1.csv');
    await writeFile(csv, 'timestamp,accX,accY\n0,1,2\n10,3,4\n20,5,6\n');
    const data = join(dir, 'data');
    const imported = await runCli(['samples', 'import', csv, '--data-dir', data, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const id = (JSON.parse(imported.stdout.trim().split('\n')[0]!) as { id: string }).id;
    const r = await runCli(['samples', 'set-rate', id, '--frequency', '100', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Sample "idle.1.cbor" already has its rate (10 ms between rows); only a sample kept without one can be given one.');
    expect(r.stderr).not.toContain('?');
  });
});
