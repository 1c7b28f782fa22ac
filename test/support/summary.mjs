// Prints one closing line for the whole run, "N passed, N failed", from the vitest and
// Playwright JSON reports, so CI sees the total of both runners.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
const [vitestFile, playwrightFile] = process.argv.slice(2);

try {
  const v = JSON.parse(readFileSync(vitestFile, 'utf8'));
  passed += v.numPassedTests;
  failed += v.numFailedTests + (v.numRuntimeErrors ?? 0);
  skipped += v.numPendingTests + v.numTodoTests;
} catch (err) {
  console.error(`no vitest report (${err.message})`);
  failed += 1;
}
try {
  const p = JSON.parse(readFileSync(playwrightFile, 'utf8'));
  passed += p.stats.expected + p.stats.flaky;
  failed += p.stats.unexpected;
  skipped += p.stats.skipped;
} catch (err) {
  console.error(`no Playwright report (${err.message})`);
  failed += 1;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
