// A server that answers the upload with an HTML page (a proxy's error page, a web site at a wrong
// --ingestion-url) had the whole page put into the error, hundreds of lines of markup. The error
// now says the status, that an HTML page came instead of the platform's JSON and where to look,
// with the page's <title> (else the start of its text) and at most 200 characters of it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendFiles } from '../../../src-main/core/upload/ingestion-client.js';
import { answerText, IngestionError } from '../../../src-main/core/upload/ingestion-errors.js';

const PAGE = (title: string) => `<!DOCTYPE html>\n<html><head>${title}<style>body { font: 14px sans-serif }</style></head><body><h1>Bad Gateway</h1><p>The proxy server received an invalid response &amp; gave up.</p>${'<p>filler</p>'.repeat(300)}</body></html>`;
const HEADERS = { category: 'training' as const, label: 'idle', metadata: {}, boundingBoxes: [], disallowDuplicates: true, addDateId: false };
const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

async function answering(status: number, body: string): Promise<string> {
  const s = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/html' }).end(body));
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

async function failure(url: string): Promise<IngestionError> {
  const err = await sendFiles({ ingestionUrl: url, apiKey: 'k' }, HEADERS, [{ name: 'idle.1.json', contentType: 'application/json', bytes: new Uint8Array(Buffer.from('{}')) }]).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(IngestionError);
  return err as IngestionError;
}

describe('an HTML page in answer to an upload', () => {
  it('a 502 page: named by its title, still a server error (tried again)', async () => {
    const err = await failure(await answering(502, PAGE('<title>502 Bad Gateway</title>')));
    expect(err.message).toBe('The server answered 502 with an HTML page ("502 Bad Gateway") instead of the platform\'s JSON: the ingestion URL is wrong (--ingestion-url on the command line, or Settings), or a proxy in between answered.');
    expect(err.kind).toBe('server');
    expect(err.retryable).toBe(true);
  });

  it('a 200 page without a title: the start of its text, 200 characters at most, nothing confirmed', async () => {
    const err = await failure(await answering(200, PAGE('')));
    expect(err.kind).toBe('bad-response');
    expect(err.message).toMatch(/^The server answered 200 with an HTML page \("Bad Gateway The proxy server received an invalid response & gave up\. filler filler .*…"\) instead of the platform's JSON: .* Nothing is confirmed\.$/);
    expect(err.message).not.toMatch(/<|font:/);
    expect(err.message.length).toBeLessThan(450);
  });

  it('text that is not HTML is kept, cut at 200 characters', () => {
    expect(answerText('  {"success":false,"error":"no"}  ')).toEqual({ html: false, said: '{"success":false,"error":"no"}' });
    const long = answerText('x'.repeat(1000));
    expect(long.html).toBe(false);
    expect(long.said).toHaveLength(200);
  });
});
