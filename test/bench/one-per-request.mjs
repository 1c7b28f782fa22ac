// The baseline: files sent the way the platform's own uploader sends them, and the way a typical
// JS uploader is written: one POST /api/{category}/files per file, a single "data" part built with
// fetch + FormData + Blob, the label from the file name, duplicates refused, 20 requests in flight.
//
//   node test/bench/one-per-request.mjs --ingestion-url URL --api-key KEY [--concurrency 20] DIR
//
// Prints "N uploaded, F failed" on stdout; exit code 1 if any file failed.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The platform's file-name rule: "idle.01.cbor" is labelled "idle". */
const labelOf = (name) => name.split('.')[0];

/** Uploads every file of `dir` (not recursive), one request each; resolves with the counts. */
export async function uploadOnePerRequest({ ingestionUrl, apiKey, dir, concurrency = 20, category = 'training' }) {
  const names = (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  const endpoint = `${ingestionUrl.replace(/\/+$/, '')}/api/${category}/files`;
  const failures = [];
  let uploaded = 0;
  let next = 0;

  async function sendOne(name) {
    const bytes = await readFile(join(dir, name));
    const form = new FormData();
    form.append('data', new Blob([bytes], { type: 'application/cbor' }), name);
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'x-label': labelOf(name), 'x-disallow-duplicates': '1' },
      body: form,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${res.status}: ${text.slice(0, 200)}`);
    const answer = JSON.parse(text);
    // A 200 is not a yes: the verdict is per file.
    if (answer.files?.[0]?.success !== true) throw new Error(answer.files?.[0]?.error ?? 'no per-file result');
  }

  async function worker() {
    while (next < names.length) {
      const name = names[next++];
      try {
        await sendOne(name);
        uploaded++;
      } catch (err) {
        failures.push({ name, error: err.message });
      }
    }
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
  return { uploaded, failed: failures.length, failures };
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'ingestion-url': { type: 'string' }, 'api-key': { type: 'string' }, concurrency: { type: 'string', default: '20' } },
  });
  if (!values['ingestion-url'] || !values['api-key'] || positionals.length !== 1) {
    process.stderr.write('usage: one-per-request.mjs --ingestion-url URL --api-key KEY [--concurrency N] DIR\n');
    return 2;
  }
  const result = await uploadOnePerRequest({
    ingestionUrl: values['ingestion-url'], apiKey: values['api-key'], dir: positionals[0], concurrency: Number(values.concurrency),
  });
  for (const f of result.failures.slice(0, 5)) process.stderr.write(`failed ${f.name}: ${f.error}\n`);
  process.stdout.write(`${result.uploaded} uploaded, ${result.failed} failed\n`);
  return result.failed === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main();
