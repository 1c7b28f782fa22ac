// `npm run bench`: runs every benchmark section in test/bench/ and prints each figure with its target.
//
// A section is a top-level .mjs file here that exports
//   async function run(): Promise<Array<{ name, value, unit, target, pass, detail? }>>
// where pass is true/false against the target, or null for a figure given for reference only.
// It may also export function summary(): string, a block printed after the table (e.g. lines ready
// to paste into the README's Benchmarks table; "model" does).
// Other .mjs files here are helpers: importing them must have no side effects.
//
//   node test/bench/run.mjs [SECTION...]    e.g. node test/bench/run.mjs upload
//
// Exit code 1 if any figure fails its target or any section throws. Expects a built dist/.
import { readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const SELF = basename(fileURLToPath(import.meta.url));

async function sections(only) {
  const files = (await readdir(HERE)).filter((f) => f.endsWith('.mjs') && f !== SELF).sort();
  const found = [];
  for (const f of files) {
    const name = basename(f, '.mjs');
    if (only.length && !only.includes(name)) continue;
    const mod = await import(new URL(f, import.meta.url).href);
    if (typeof mod.run === 'function') found.push({ name, run: mod.run, summary: typeof mod.summary === 'function' ? mod.summary : null });
  }
  const missing = only.filter((n) => !found.some((s) => s.name === n));
  if (missing.length) throw new Error(`no benchmark section named ${missing.join(', ')} in ${HERE}`);
  return found;
}

function formatValue(v) {
  return typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 2 }) : String(v);
}

function printTable(rows) {
  const cells = rows.map((r) => [
    r.name, `${formatValue(r.value)} ${r.unit}`, r.target, r.pass === null ? 'info' : r.pass ? 'PASS' : 'FAIL',
  ]);
  const head = ['figure', 'value', 'target', 'result'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => c.map((x, i) => x.padEnd(widths[i])).join('  ').trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  rows.forEach((r, i) => {
    console.log(line(cells[i]));
    if (r.detail) console.log(`    ${r.detail}`);
  });
}

const rows = [];
const summaries = [];
for (const section of await sections(process.argv.slice(2))) {
  const start = performance.now();
  process.stderr.write(`bench: ${section.name}...\n`);
  try {
    rows.push(...(await section.run()));
  } catch (err) {
    rows.push({ name: `${section.name}: section crashed`, value: '-', unit: '', target: 'runs', pass: false, detail: err?.stack ?? String(err) });
  }
  const text = section.summary?.();
  if (text) summaries.push(text);
  process.stderr.write(`bench: ${section.name} took ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
}
printTable(rows);
for (const text of summaries) console.log(`\n${text}`);
const failed = rows.filter((r) => r.pass === false).length;
console.log(failed ? `\n${failed} figure(s) missed their target.` : '\nEvery figure met its target.');
process.exitCode = failed ? 1 : 0;
