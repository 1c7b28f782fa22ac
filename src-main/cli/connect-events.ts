import type { RemoteDevice, RemoteRequest } from '../core/contract/contract.js';

/**
 * What `capture-desk connect` says about each device, derived from the core's `remote.changed`
 * events: a line per transition (of the link's state, and of the current request's stage), never
 * one per event, since the core re-sends a device's whole view whenever anything about it changes.
 * Human sentences go to stderr; with --json, one JSON object per line goes to stdout.
 */
export interface ReporterOptions {
  json: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
  /** How a person knows the source: the port path, the microphone's name. */
  sourceName: (sourceId: string) => string;
  /** Runs once, the first time a device is online, before "connected" is said (--name renames there). */
  firstOnline?: (dev: RemoteDevice) => Promise<RemoteDevice>;
  /** The platform refused the hello: connect ends. */
  refused: (dev: RemoteDevice) => void;
}

interface Seen {
  state: RemoteDevice['state'] | null;
  connected: boolean;
  everOnline: boolean;
  /** The request whose stages are being followed (its `at`, then its label). */
  request: string | null;
  stages: Set<RemoteRequest['stage']>;
}

const CONNECTED: ReadonlySet<RemoteDevice['state']> = new Set(['online', 'recording']);

export class ConnectReporter {
  readonly #o: ReporterOptions;
  readonly #seen = new Map<string, Seen>();
  /** One device's events are said in the order they happened, even while --name renames. */
  #chain: Promise<void> = Promise.resolve();

  constructor(o: ReporterOptions) {
    this.#o = o;
  }

  handle(dev: RemoteDevice): void {
    this.#chain = this.#chain.then(() => this.#handle(dev)).catch((err: unknown) => this.#o.err(`capture-desk connect: ${String(err)}\n`));
  }

  /** Resolves once every event handed in so far has been said. */
  settled(): Promise<void> {
    return this.#chain;
  }

  async #handle(dev: RemoteDevice): Promise<void> {
    const o = this.#o;
    let s = this.#seen.get(dev.sourceId);
    if (!s) this.#seen.set(dev.sourceId, (s = { state: null, connected: false, everOnline: false, request: null, stages: new Set() }));
    const src = o.sourceName(dev.sourceId);
    const changed = s.state !== dev.state;
    s.state = dev.state;

    const connected = CONNECTED.has(dev.state);
    if (connected && !s.connected) {
      s.connected = true;
      if (!s.everOnline && o.firstOnline) dev = await o.firstOnline(dev);
      s.everOnline = true;
      const sensors = dev.sensors.map((x) => ({ name: x.name, frequencies: x.frequencies, max_sample_length_s: x.maxSampleLengthS }));
      this.#say(
        { event: 'connected', device_id: dev.deviceId, device_name: dev.name ?? dev.deviceId, sensors, ...(dev.baud ? { baud: dev.baud.rate, baud_detected: dev.baud.detected } : {}) },
        `${src}: connected as ${dev.deviceId}${dev.name ? ` ("${dev.name}")` : ''}${dev.baud ? ` at ${dev.baud.rate} baud${dev.baud.detected ? ' (found)' : ''}` : ''}; sensors: ${dev.sensors.map((x) => `${x.name} at ${x.frequencies.join('/')} Hz, up to ${x.maxSampleLengthS} s`).join('; ') || 'none'}`,
      );
    } else if (!connected && s.connected) {
      s.connected = false;
      const reason = dev.state === 'off' ? 'capture-desk connect is stopping' : (dev.reason ?? 'the connection closed');
      this.#say({ event: 'disconnected', device_id: dev.deviceId, reason }, `${src}: disconnected: ${reason}`);
    }
    if (changed && (dev.state === 'reconnecting' || dev.state === 'failed') && dev.retryInMs !== null) {
      const human = dev.state === 'failed'
        ? `${src}: cannot connect yet (${dev.reason ?? 'the source is not ready'}); trying again in ${secs(dev.retryInMs)}`
        : `${src}: reconnecting in ${secs(dev.retryInMs)}${s.everOnline ? '' : ` (${dev.reason ?? 'no connection'})`}`;
      this.#say({ event: 'reconnecting', device_id: dev.deviceId, in_ms: dev.retryInMs }, human);
    }
    if (changed && dev.state === 'refused') o.refused(dev);

    const r = dev.request;
    if (!r) return;
    const key = `${r.at}\n${r.label}`;
    if (s.request !== key) {
      s.request = key;
      s.stages = new Set();
    }
    if (s.stages.has(r.stage)) return;
    // A request refused at once (unknown sensor, too long) is first seen failed: it was still asked for.
    if (!s.stages.has('requested')) {
      s.stages.add('requested');
      this.#say(
        { event: 'sample-requested', device_id: dev.deviceId, label: r.label, length_ms: r.lengthMs, sensor: r.sensor, path: r.path },
        `${src}: sample requested: "${r.label}", ${secs(r.lengthMs)} from "${r.sensor ?? 'the first sensor'}" for ${r.path}${progressHint(r)}`,
      );
    }
    s.stages.add(r.stage);
    switch (r.stage) {
      case 'recording':
        return o.err(`${src}: recording "${r.label}" for the platform…\n`);
      case 'uploading':
        return this.#say(
          { event: 'sample-saved', device_id: dev.deviceId, sample_id: r.sampleId, sample_ids: r.sampleIds, label: r.label, category: r.category },
          `${src}: saved ${samplesWords(r.sampleIds)} ("${r.label}", ${r.category}); uploading`,
        );
      case 'finished':
        return this.#say({ event: 'sample-finished', device_id: dev.deviceId, sample_id: r.sampleId, sample_ids: r.sampleIds }, `${src}: finished: the platform has ${samplesWords(r.sampleIds)}`);
      case 'failed':
        return this.#say(
          { event: 'sample-failed', device_id: dev.deviceId, error: r.error ?? 'unknown error' },
          `${src}: sample failed: ${r.error ?? 'unknown error'}${r.sampleId ? ` (sample ${r.sampleId} is kept on this computer)` : ''}`,
        );
      default:
        return;
    }
  }

  #say(event: Record<string, unknown>, human: string): void {
    if (this.#o.json) this.#o.out(JSON.stringify(event) + '\n');
    this.#o.err(human + '\n');
  }
}

function secs(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

function progressHint(r: RemoteRequest): string {
  return r.targetSampleCount !== null && r.collectedSampleCount !== null ? ` (${r.collectedSampleCount} of ${r.targetSampleCount} collected)` : '';
}

/** "sample s1", or the parts of a take a board's restart split: "samples s1 and s2 (the board restarted during the take)". */
function samplesWords(ids: string[]): string {
  if (ids.length <= 1) return `sample ${ids[0] ?? '(none)'}`;
  return `samples ${ids.slice(0, -1).join(', ')} and ${ids.at(-1)} (the board restarted during the take)`;
}
