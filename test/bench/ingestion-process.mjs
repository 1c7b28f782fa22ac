// The ingestion emulator (test/support/ingestion-server, TypeScript) in a process of its own, so
// the client being measured never shares an event loop or a core's time slice with it in-process.
// Parent side: bundleSupport() + startIngestionProcess(). Run as a script, this file is the child.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleTs } from './ts-bundle.mjs';

const SUPPORT = fileURLToPath(new URL('../support/ingestion-server/', import.meta.url));

/** Bundles the emulator and its fixtures into plain ESM (see ts-bundle.mjs). */
export async function bundleSupport() {
  const b = await bundleTs({ server: join(SUPPORT, 'server.ts'), fixtures: join(SUPPORT, 'fixtures.ts') }, 'capture-desk-bench-support-');
  return { server: b.path('server'), fixtures: b.path('fixtures'), dir: b.dir };
}

/**
 * Runs a benchmark section that drives the built CLI against the support bundle (emulator,
 * fixtures): `body` gets a temp folder of its own and the bundle; both are removed afterwards.
 */
export async function withCliAndSupport(cli, section, body) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first.`);
  const tmp = await mkdtemp(join(tmpdir(), `capture-desk-bench-${section}-`));
  const support = await bundleSupport();
  try {
    return await body(tmp, support);
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(support.dir, { recursive: true, force: true });
  }
}

/**
 * Starts a fresh emulator (empty sample list, so the duplicate check never short-circuits a run) in
 * a child process. Resolves with its URL, a way to ask how many samples it stored, and close().
 */
export function startIngestionProcess(serverBundle, options = {}) {
  const child = fork(fileURLToPath(import.meta.url), [serverBundle, JSON.stringify(options)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map();
  let nextId = 1;
  const ask = (type) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    child.send({ id, type });
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const err = new Error(`ingestion emulator exited with code ${code}`);
      for (const w of waiting.values()) w.reject(err);
      reject(err);
    });
    child.on('message', (m) => {
      if (m.type === 'ready') {
        resolve({
          url: m.url,
          pid: child.pid,
          /** { samples, requests }: what the emulator stored and how many POSTs it answered. */
          stats: () => ask('stats'),
          close: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.send({ id: 0, type: 'close' });
          }),
        });
        return;
      }
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      w?.resolve(m.value);
    });
  });
}

async function childMain(serverBundle, optionsJson) {
  const { startIngestionServer } = await import(pathToFileURL(serverBundle).href);
  const server = await startIngestionServer(JSON.parse(optionsJson));
  process.on('message', async (m) => {
    if (m.type === 'close') {
      await server.close();
      process.disconnect();
      return;
    }
    if (m.type === 'stats') {
      const posts = server.requests.filter((r) => r.method === 'POST').length;
      const cpu = process.cpuUsage();
      process.send({ id: m.id, value: { samples: server.samples.length, requests: posts, cpuMs: Math.round((cpu.user + cpu.system) / 1000) } });
    }
  });
  process.on('disconnect', () => process.exit(0)); // the parent died: do not linger
  process.send({ type: 'ready', url: server.url });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await childMain(process.argv[2], process.argv[3] ?? '{}');
}
