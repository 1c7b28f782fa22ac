import { createHmac } from 'node:crypto';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { encodeCbor, png, sensorDoc } from '../support/ingestion-server/fixtures.js';
import { startIngestionServer } from '../support/ingestion-server/server.js';

// Issue 42, item 1: a run that sends files an earlier run queued sends them with its own words.
const KEY = 'ei_test_key';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function world(n = 2) {
  const srv = await startIngestionServer();
  cleanups.push(() => srv.close());
  const root = await mkdtemp(join(tmpdir(), 'cd-retry-'));
  const caps = join(root, 'caps');
  await mkdir(caps);
  for (let i = 0; i < n; i++) await writeFile(join(caps, `wave.${i}.cbor`), encodeCbor(sensorDoc([[i, 1], [i, 2]])));
  const run = (key: string, ...extra: string[]) =>
    runCli(['upload', '--ingestion-url', srv.url, '--api-key', key, '--data-dir', join(root, 'data'), ...extra, caps]);
  return { srv, root, caps, run };
}

const lastLine = (out: string) => out.trim().split('\n').at(-1);

describe('capture-desk upload: a retry uploads what the person asked for now', () => {
  it('files a refused key left queued go with the next run\'s label and category, and the summary says so', async () => {
    const { srv, run } = await world(2);
    const wrong = await run('WRONG', '--label', 'AAA');
    expect(wrong.code).toBe(1);
    expect(srv.samples).toHaveLength(0);

    const right = await run(KEY, '--label', 'BBB', '--category', 'testing');
    expect(srv.samples.map((s) => [s.label, s.category])).toEqual([['BBB', 'testing'], ['BBB', 'testing']]);
    expect(lastLine(right.stdout)).toBe('2 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(right.code).toBe(0);
    expect(right.stderr).toMatch(/2 queued with another label and category earlier: now sent as BBB \/ testing/);
  });

  it('a run refused again keeps its words for the next and does not say they were sent', async () => {
    const { srv, run } = await world(2);
    await run('WRONG', '--label', 'AAA');
    const again = await run('WRONG', '--label', 'BBB');
    expect(again.stderr).toMatch(/2 queued with another label earlier: now queued as BBB \/ training/);
    expect((await run(KEY, '--label', 'BBB')).code).toBe(0);
    expect(srv.samples.map((s) => s.label)).toEqual(['BBB', 'BBB']);
  });

  it('metadata and flags given again replace the earlier run\'s too', async () => {
    const { srv, run } = await world(1);
    await run('WRONG', '--metadata', '{"subject":"ana"}', '--add-date-id');
    const r = await run(KEY, '--metadata', '{"subject":"bo"}', '--allow-duplicates');
    expect(r.code).toBe(0);
    expect(srv.samples[0]).toMatchObject({ label: 'wave', metadata: { subject: 'bo' }, filename: 'wave.0.cbor' });
    const q = srv.requests.findLast((x) => x.path.endsWith('/files'))!;
    expect(q.headers['x-disallow-duplicates']).toBeUndefined();
    expect(r.stderr).toMatch(/1 queued with other metadata and flags earlier: now sent as wave \/ training/);
  });

  it('says on the command line what to do about a refused key, without log lines', async () => {
    const { run } = await world(1);
    const r = await run('WRONG');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--api-key');
    expect(r.stderr).toContain('CAPTURE_DESK_API_KEY');
    expect(r.stderr).toContain('capture-desk check');
    expect(r.stderr).not.toMatch(/Settings|resume/);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
    const verbose = await run('WRONG', '--verbose');
    expect(verbose.stderr.split('\n').some((l) => l.startsWith('{') && l.includes('API key refused'))).toBe(true);
  });

  it('never re-sends a file already on the platform under other words: it says where it is and how to change it', async () => {
    const { srv, root, caps, run } = await world(1);
    expect((await run(KEY, '--label', 'AAA')).code).toBe(0);
    const before = srv.requests.length;
    const r = await run(KEY, '--label', 'BBB', '--category', 'testing');
    expect(srv.requests.length).toBe(before);
    expect(srv.samples.map((s) => [s.label, s.category])).toEqual([['AAA', 'training']]);
    expect(lastLine(r.stdout)).toBe('0 uploaded, 1 already present, 0 rejected, 0 failed');
    expect(r.stderr).toMatch(/wave\.0\.cbor is already on the platform as AAA \/ training \(sample 1\), so it was not sent as BBB \/ testing/);
    expect(r.stderr).toMatch(/To change it, edit the label or move it to another category on the platform/);
    expect(r.code).toBe(1);
    // The second copy the advice offers: --allow-duplicates from a data folder that does not know the file.
    expect(r.stderr).toContain('--allow-duplicates and another --data-dir');
    const copy = await runCli(['upload', '--ingestion-url', srv.url, '--api-key', KEY, '--data-dir', join(root, 'other'), '--allow-duplicates', '--label', 'BBB', '--category', 'testing', caps]);
    expect(copy.code).toBe(0);
    expect(srv.samples.map((s) => [s.label, s.category])).toEqual([['AAA', 'training'], ['BBB', 'testing']]);
  });

  it('sends nothing of a file whose labels file this run cannot use, not even what an earlier run queued', async () => {
    const { srv, caps, run } = await world(1); // wave.0.cbor keeps the run going: its queue sends
    srv.setFaults({ labelingMethod: 'object_detection' });
    await mkdir(join(caps, 'imgs'));
    await writeFile(join(caps, 'imgs', 'a.1.png'), png());
    const boxes = (x: unknown) => writeFile(join(caps, 'imgs', 'bounding_boxes.labels'), JSON.stringify({ version: 1, type: 'bounding-box-labels', boundingBoxes: { 'a.1.png': [{ label: 'a', x, y: 2, width: 3, height: 4 }] } }));
    await boxes(1);
    expect((await run('WRONG')).code).toBe(1);
    await boxes('1'); // broken now: x must be a number
    const r = await run(KEY);
    expect(lastLine(r.stdout), r.stderr).toBe('1 uploaded, 0 already present, 1 rejected, 0 failed');
    expect(srv.samples.map((x) => x.originalName)).toEqual(['wave.0.cbor']);
  });

  it('counts as uploaded only what this run stored, while another run sends the same files', async () => {
    const { srv, run } = await world(4);
    srv.setFaults({ delayMs: 250 });
    const first = run(KEY, '--concurrency', '1', '--files-per-request', '1');
    while (srv.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    const second = await run(KEY, '--concurrency', '1', '--files-per-request', '1');
    const one = await first;
    const uploaded = (r: { stdout: string }) => Number(/^(\d+) uploaded/.exec(lastLine(r.stdout) ?? '')?.[1]);
    expect(srv.samples).toHaveLength(4);
    expect(uploaded(one) + uploaded(second), JSON.stringify({ one, second })).toBe(4);
  }, 30_000);

  it('a file signed with another HMAC key, or with none, is signed as this run says', async () => {
    const { srv, run } = await world(1);
    await run('WRONG', '--hmac-key', 'key-one');
    srv.setFaults({ hmacKey: 'key-two' });
    const r = await run(KEY, '--hmac-key', 'key-two');
    expect(lastLine(r.stdout)).toBe('1 uploaded, 0 already present, 0 rejected, 0 failed');
    expect(verifies(srv.samples[0]!.bytes, 'key-two')).toBe(true);

    // The same with no key at all this time: the file goes as it is, unsigned.
    const w = await world(1);
    await w.run('WRONG', '--hmac-key', 'key-one');
    expect((await w.run(KEY)).code).toBe(0);
    expect(w.srv.samples[0]!.bytes.equals(await readFile(join(w.caps, 'wave.0.cbor')))).toBe(true);
  });
});

/** The device rule: HMAC-SHA256 of the message with a zero signature in place of its own. */
function verifies(bytes: Buffer, key: string): boolean {
  const sig = /[0-9a-f]{64}/.exec(bytes.toString('latin1'))?.[0];
  if (!sig) return false;
  const zeroed = Buffer.from(bytes.toString('latin1').replace(sig, '0'.repeat(64)), 'latin1');
  return createHmac('sha256', key).update(zeroed).digest('hex') === sig;
}
