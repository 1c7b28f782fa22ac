import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { IngestionError } from './ingestion-errors.js';

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });

export interface HttpAnswer {
  status: number;
  text: string;
}

/**
 * POSTs a body and reads the whole answer. Keep-alive sockets make many small requests cheap;
 * every way the transport can fail becomes an IngestionError the queue knows how to handle.
 */
export function httpPost(url: URL, headers: Record<string, string | number>, body: Buffer[], timeoutMs: number): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const isHttps = url.protocol === 'https:';
    const req = (isHttps ? httpsRequest : httpRequest)(url, { method: 'POST', headers, agent: isHttps ? httpsAgent : httpAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (err) => reject(new IngestionError('network', `Connection lost while reading the answer from ${url.host}: ${err.message}`)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new IngestionError('timeout', `No answer from ${url.host} within ${Math.round(timeoutMs / 1000)} s.`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof IngestionError) return reject(err);
      reject(new IngestionError('network', `Could not reach ${url.host}: ${err.code ?? err.message}. Check the network and the ingestion URL.`));
    });
    for (const chunk of body) req.write(chunk);
    req.end();
  });
}
