// `capture-desk model` given damaged exports and data folders (issue 42, item 5), through the built
// CLI: each is refused or listed with one sentence saying what to do, never with stack frames or
// a JavaScript internal on the terminal.
import { mkdir, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { GLUE_FILE, PRESETS, testModelGlue, testModelWasm, writeTestModel, type TestModelOptions } from '../support/models/test-model.mjs';
import { useTempDir } from '../support/temp-dir.js';

const root = useTempDir('cd-cli-model-damaged-');
let n = 0;

const dataDir = async () => {
  const d = join(root(), `data-${n++}`);
  await mkdir(d);
  return d;
};
const exportOf = async (opts: TestModelOptions) => writeTestModel(join(root(), `export-${n++}`), opts);
const model = (args: string[], data: string) => runCli(['model', ...args, '--data-dir', data]);
/** A stack frame line, Node's or the module's. */
const FRAME = /^\s+at /m;

describe('capture-desk model with damaged exports', () => {
  it('refuses a .wasm cut short, saying so and to download it again', async () => {
    const data = await dataDir();
    const m = await exportOf(PRESETS.gestureNew);
    await truncate(m.wasm, testModelWasm().length - 5);
    const r = await model(['add', m.dir], data);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/edge-impulse-standalone\.wasm in .*export-\d+ looks cut short \(an interrupted download\?\): its sections need at least \d+ bytes and the file holds \d+\. Download the export again/);
    expect(r.stderr).not.toMatch(FRAME);
    expect(await readdir(join(data, 'models')).catch(() => [])).toEqual([]);
  }, 30_000);

  // Whole but not valid: the wasm's memory may hold fewer pages than it starts with. The glue
  // aborts inside the promise chain that starts it, which nobody awaits; with processHandlers it
  // also has a re-throwing unhandledRejection handler, as newer builds do.
  it('refuses a .wasm that does not compile with the engine\'s sentence and no stack frames', async () => {
    const data = await dataDir();
    for (const processHandlers of [false, true]) {
      const m = await exportOf({ ...PRESETS.gestureNew, faults: { processHandlers } });
      const wasm = Buffer.from(await readFile(m.wasm));
      const limits = wasm.indexOf(Buffer.from([0x05, 0x05, 0x01, 0x01, 0x02, 0x80, 0x10]));
      wasm.set([0x81, 0x00], limits + 5); // max 1 page (LEB128 in the same two bytes) < min 2
      await writeFile(m.wasm, wasm);
      // Once as a person runs it, once with --verbose (as for a bug report).
      const verbose = processHandlers;
      const r = await model(['add', m.dir, ...(verbose ? ['--verbose'] : [])], data);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/The model could not be started: CompileError: .*\. Its \.wasm file is damaged: download the export again from the platform's deployment page/);
      expect(r.stderr).not.toMatch(FRAME);
      // The frames are in the log line (one JSON line) that --verbose writes, for whoever reports it.
      if (verbose) expect(r.stderr).toMatch(/"msg":"model did not start".*"detail":"[^"\n]*\\n {4}at /);
      else expect(r.stderr).not.toMatch(/"msg"/);
    }
  }, 30_000);

  // Exports whose answers are not what a classifier returns: the kit's glue with one function
  // changed, as a broken or hand-edited build would have it.
  const answers: Array<[string, TestModelOptions, string, string, RegExp]> = [
    ['classification: 42', PRESETS.gestureOld, 'classification: function (s) { return newEntryVector({ items: s.items }); },', 'classification: function (s) { return 42; },',
      /The model gave an answer Capture Desk cannot read when it classified a window of zeros: its answer has classification 42, not a list of labels and scores\. It cannot run here/],
    ['a null result', PRESETS.gestureNew, 'return resultFor(0, answer);\n}\n\nvar rolling', 'return null;\n}\n\nvar rolling',
      /The model gave an answer Capture Desk cannot read when it classified a window of zeros: its answer is null, not a result with labels and scores\. It cannot run here/],
    ['a null score', PRESETS.gestureNew, "get: function (s, i) { return i >= 0 && i < s.items.length ? wrap(s.items[i]) : undefined; },", 'get: function (s, i) { return null; },',
      /its answer has null as score 0, not a label and a score/],
    ['null properties', PRESETS.gestureNew, "Module.get_properties = function () { checkAlive('get_properties'); return newProperties({}); };", 'Module.get_properties = function () { return null; };',
      /The model could not be started: get_properties returned null, not the model's properties\./],
  ];
  it.each(answers)('refuses a model whose answer is %s, with a sentence', async (_what, opts, from, to, said) => {
    const data = await dataDir();
    const m = await exportOf(opts);
    const glue = testModelGlue(opts);
    expect(glue).toContain(from);
    await writeFile(join(m.dir, GLUE_FILE), glue.replace(from, to));
    const r = await model(['add', m.dir, '--axes', '3'].slice(0, opts.generation === 'old' ? 4 : 2), data);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(said);
    expect(r.stderr).not.toMatch(/Cannot read properties|TypeError/);
    expect(r.stderr).not.toMatch(FRAME);
    expect(await readdir(join(data, 'models')).catch(() => [])).toEqual([]);
  }, 30_000);

  it.each([
    ['garbage', 'not JSON at all\n', /is not valid JSON \(damaged, or edited by hand\)/],
    ['JSON that is not a model record', '{"name": 42}\n', /does not describe a model \(/],
  ])('lists a model whose model.json is %s, says what to do, and removes it on request', async (_what, text, why) => {
    const data = await dataDir();
    for (const name of ['good', 'broken']) expect((await model(['add', (await exportOf(PRESETS.gestureNew)).dir, '--name', name], data)).code).toBe(0);
    const record = join(data, 'models', 'broken', 'model.json');
    await writeFile(record, text);
    const todo = `, so the model cannot be described or run. Remove it with "capture-desk model remove broken" (the app's model list does not show it) and add its export again.`;
    const says = (text: string) => {
      expect(text).toContain(`Model "broken": ${record} `);
      expect(text).toMatch(why);
      expect(text).toContain(todo);
    };

    const list = await model(['list'], data);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^good +accelerometer/m);
    const line = list.stdout.split('\n').find((l) => l.startsWith('broken '));
    expect(line).toMatch(/^broken +\[unreadable\] Model "broken": /);
    says(line!);
    const json = (await model(['list', '--json'], data)).stdout.trim().split('\n').map((l) => JSON.parse(l) as { name: string; status: string; problem: string });
    expect(json.map((m) => [m.name, m.status])).toEqual([['good', 'ready'], ['broken', 'unreadable']]);
    says(json[1]!.problem);
    const info = await model(['info', 'broken'], data);
    expect(info.code).toBe(1);
    says(info.stderr);
    // The parser's own words stay in the log line; the sentence is ours.
    expect(info.stderr).not.toMatch(/^capture-desk model: .*Unexpected token/m);

    expect((await model(['remove', 'broken'], data)).code).toBe(0);
    expect(await readdir(join(data, 'models'))).toEqual(['good']);
  }, 60_000);
});
