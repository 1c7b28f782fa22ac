import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestError, handleFiles, handleLegacy, text } from './ingest.js';
import type { Reply, State } from './ingest.js';
import { handleManagement } from './management.js';
import { DEFAULT_FAULTS } from './types.js';
import type {
  Category, IngestionFaults, IngestionServer, IngestionServerOptions, RequestLogEntry,
} from './types.js';

export type * from './types.js';
export { DEFAULT_FAULTS } from './types.js';

const FILES_PATH = /^\/api\/(training|validation|testing|post-processing|split)\/files$/;
const LEGACY_PATH = /^\/api\/(training|testing|anomaly)\/data$/;

function defined<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

interface Body {
  bytes: Buffer;
  size: number;
  overflow: boolean;
}

function readBody(req: IncomingMessage, limit: number): Promise<Body> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Keep draining past the limit so the client sees the 400 instead of EPIPE.
      if (size > limit) {
        overflow = true;
        chunks.length = 0;
      } else if (!overflow) chunks.push(chunk);
    });
    req.on('end', () => resolve({ bytes: Buffer.concat(chunks), size, overflow }));
    req.on('error', reject);
  });
}

/** Lets some of the body arrive first, so the client sees a reset while it is still sending. */
function destroyMidRequest(req: IncomingMessage): void {
  req.on('error', () => undefined);
  const length = req.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) {
    req.socket.destroy();
    return;
  }
  const kill = (): void => {
    req.socket.destroy();
  };
  req.once('data', kill);
  req.once('end', kill);
}

export async function startIngestionServer(opts: IngestionServerOptions = {}): Promise<IngestionServer> {
  const { host = '127.0.0.1', port = 0, ...settings } = opts;
  const initial: IngestionFaults = { ...DEFAULT_FAULTS, ...defined(settings) };
  const faults: IngestionFaults = { ...initial, apiKeys: [...initial.apiKeys] };
  const state: State = { faults, samples: [], nextId: 1, devices: new Map(), hub: null, nextSamplingId: 1, classified: new Set(), classifyJobs: [] };
  const requests: RequestLogEntry[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  // Management calls may wait on a device (start-sampling), so a route can answer later.
  function route(entry: RequestLogEntry, headers: Record<string, string>, body: Buffer): Reply | Promise<Reply> {
    const { method, path } = entry;
    if (path.startsWith('/v1/')) return handleManagement(state, method, path, headers, body, entry.query);
    const files = FILES_PATH.exec(path);
    const legacy = LEGACY_PATH.exec(path);
    if (!files && !legacy) return text(404, `Not found: ${method} ${path}`);
    if (method !== 'POST') return text(405, `Method ${method} not allowed on ${path}; use POST`);
    const key = headers['x-api-key'];
    if (key === undefined || key === '') return text(401, 'Missing header x-api-key');
    if (!faults.apiKeys.includes(key)) return text(401, 'Invalid API key');
    if (files) {
      return handleFiles(state, files[1] as Category | 'split', headers, body, (n) => {
        entry.fileCount = n;
      });
    }
    entry.fileCount = 1;
    return handleLegacy(state, legacy?.[1] as 'training' | 'testing' | 'anomaly', headers, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry): Promise<void> {
    const headers = entry.headers;
    if (faults.resetNext > 0) {
      faults.resetNext--;
      destroyMidRequest(req);
      return;
    }
    const body = await readBody(req, faults.maxBodyBytes);
    entry.bodyBytes = body.size;
    let reply: Reply;
    if (faults.fail500Next > 0) {
      faults.fail500Next--;
      reply = text(500, 'Internal server error (injected fault)');
    } else if (body.overflow) {
      reply = text(400, `Request body too large: over ${faults.maxBodyBytes} bytes`);
    } else {
      try {
        reply = await route(entry, headers, body.bytes);
      } catch (e) {
        if (!(e instanceof RequestError)) throw e;
        reply = text(e.status, e.message);
      }
    }
    if (faults.delayMs > 0) await new Promise((r) => setTimeout(r, faults.delayMs));
    entry.status = reply.status;
    res.writeHead(reply.status, { 'content-type': reply.contentType, 'content-length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  }

  const server = http.createServer((req, res) => {
    // Split by hand: new URL() throws on some request targets and would take the process down.
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const entry: RequestLogEntry = {
      method: req.method ?? '', path: q < 0 ? target : target.slice(0, q), query: q < 0 ? '' : target.slice(q),
      headers: flattenHeaders(req), fileCount: 0, bodyBytes: 0, status: 0,
    };
    requests.push(entry);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => inFlight--);
    handle(req, res, entry).catch((e: unknown) => {
      // A client that hung up mid-body is not a server bug; anything else answers 500.
      if (res.headersSent || req.socket.destroyed) return;
      entry.status = 500;
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`Internal server error: ${e instanceof Error ? e.message : String(e)}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host}:${address.port}`;

  return {
    url,
    managementUrl: `${url}/v1`,
    port: address.port,
    samples: state.samples,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    faults,
    devices: state.devices,
    get attachedDevices() {
      return state.hub;
    },
    attachDevices(hub) {
      state.hub = hub;
    },
    classifyJobs: state.classifyJobs,
    forgetClassifications() {
      state.classified.clear();
    },
    deleteSample(id) {
      const at = state.samples.findIndex((s) => s.id === id);
      if (at < 0) return false;
      state.samples.splice(at, 1);
      for (const key of [...state.classified]) if (key.startsWith(`${id}/`)) state.classified.delete(key);
      return true;
    },
    setFaults(patch) {
      Object.assign(faults, defined(patch));
    },
    reset() {
      state.samples.length = 0;
      requests.length = 0;
      maxInFlight = inFlight;
      Object.assign(faults, initial, { apiKeys: [...initial.apiKeys] });
      state.nextId = 1;
      state.nextSamplingId = 1;
      state.classified.clear();
      state.classifyJobs.length = 0;
      for (const id of [...state.devices.keys()]) {
        if (!state.hub?.isConnected(id)) state.devices.delete(id);
      }
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
