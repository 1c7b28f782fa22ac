// packaging.test.ts copies this file into the root of an app extracted from app.asar and runs it
// with plain Node. It imports every production dependency from there (so they resolve the way the
// packaged app resolves them), exercises libsql (the SQLite binding), and reports which native .node
// files the process mapped (from /proc/self/maps). Loading here under Node says the files are in
// place; that they also load in Electron rests on each being Node-API, which
// test/packaging/native-abi.test.ts checks for every .node file of the packaged app.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const appDir = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8'));
const requireFromApp = createRequire(join(appDir, 'package.json'));
const result = { imports: {}, sqlite: null, nativeFiles: [] };

for (const name of Object.keys(pkg.dependencies ?? {})) {
  try {
    await import(name);
    result.imports[name] = 'ok';
  } catch (err) {
    result.imports[name] = String(err?.message ?? err).slice(0, 500);
  }
}

try {
  const Database = requireFromApp('libsql');
  const db = new Database(':memory:');
  result.sqlite = db.prepare('select sqlite_version() as v').get().v;
  db.close();
} catch (err) {
  result.sqlite = `error: ${err?.message ?? err}`;
}

result.nativeFiles = [
  ...new Set(
    readFileSync('/proc/self/maps', 'utf8')
      .split('\n')
      .map((line) => line.split(/\s+/).slice(5).join(' '))
      .filter((file) => file.endsWith('.node')),
  ),
];
console.log(JSON.stringify(result));
