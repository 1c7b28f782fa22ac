import type { RemoteDevice, RemoteRequest, StreamStats } from '../contract/contract.js';
import { CoreError } from '../errors.js';
import type { EventBus } from '../event-bus.js';
import type { Logger } from '../log.js';
import type { KnownSecrets } from '../secrets/known-secrets.js';
import type { ProjectKeys } from '../secrets/project-keys.js';
import type { SettingsStore } from '../settings/settings-store.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { UploadService } from '../upload/upload-service.js';
import { renameDevice } from '../upload/management-client.js';
import { AUDIO_PREFIX } from '../audio/microphones.js';
import { atBackend, linesBackend, microphoneBackend, type BackendDeps, type DeviceBackend } from './backends.js';
import { derivedDeviceId, serialNumberDeviceId } from './device-identity.js';
import { categoryOfPath, type ProgressMessage, type SampleRequest } from './protocol.js';
import { RemoteConfig, type RemoteEntry } from './remote-config.js';
import { RemoteLink, type Reply } from './remote-link.js';
import { remoteMgmtUrl } from './remote-url.js';
import type { RemoteConnector } from './socket.js';
import { uploadVerdict } from './upload-verdict.js';

export interface RemoteDevicesDeps extends Omit<BackendDeps, 'stats' | 'lost'> {
  dataDir: string;
  connector: RemoteConnector;
  settings: SettingsStore;
  keys: ProjectKeys;
  secrets: KnownSecrets;
  store: SampleStore;
  uploads: UploadService;
  log: Logger;
  /** This computer, for device ids derived from it (device-identity.ts machineKey()). */
  machine: string;
  /** Link timing (tests shorten it). */
  timing?: { pingMs?: number; pongTimeoutMs?: number; backoff?: { baseMs: number; maxMs: number } };
  /** Start the links of sources remembered as connected (default true; `capture-desk connect` starts only its own). */
  startRemembered?: boolean;
}

interface Device {
  sourceId: string;
  key: string;
  entry: RemoteEntry;
  backend: DeviceBackend;
  link: RemoteLink;
  request: RemoteRequest | null;
  busy: boolean;
}

/** How long closing waits for the takes the platform asked for (the shells force an exit at 15 s). */
const CLOSE_WAIT_MS = 10_000;

/** The note every take the platform asked for carries. */
export function platformNote(deviceId: string, at: Date): string {
  return `requested by the platform (remote management, device ${deviceId}) at ${at.toISOString()}`;
}

/**
 * Sources connected to the platform as devices: one remote-management link per source that has
 * "Connect to platform" on. A request becomes an ordinary take of the recording service (or an AT
 * board's own sampling), saved locally and uploaded once through the durable queue; the platform
 * hears `sampleFinished` only after the queue read the platform's own yes.
 */
export class RemoteDevices {
  readonly #d: RemoteDevicesDeps;
  readonly #config: RemoteConfig;
  readonly #devices = new Map<string, Device>();
  readonly #stats = new Map<string, StreamStats>();
  readonly #lost = new Map<string, string>();
  readonly #offs: Array<() => void> = [];
  readonly #closing = new AbortController();
  /** Aborted when closing has waited long enough: takes still recording end now (see close()). */
  readonly #cut = new AbortController();
  /** Requests being honoured (recording, saving, waiting for the platform's yes). */
  readonly #inflight = new Set<Promise<void>>();
  #shuttingDown = false;

  private constructor(d: RemoteDevicesDeps, config: RemoteConfig) {
    this.#d = d;
    this.#config = config;
    this.#offs.push(
      d.bus.on('stream.stats', (s) => this.#stats.set(s.sourceId, s)),
      d.bus.on('stream.state', (s) => {
        if (s.state === 'error') this.#lost.set(s.sourceId, s.error?.message ?? 'the source stopped');
        else this.#lost.delete(s.sourceId);
        // A stream stopped by hand is started again by the next request or connection.
        if (s.state === 'stopped') this.#stats.delete(s.sourceId);
      }),
    );
  }

  static async open(d: RemoteDevicesDeps): Promise<RemoteDevices> {
    const r = new RemoteDevices(d, await RemoteConfig.open(d.dataDir, d.log));
    for (const [key, entry] of r.#config.entries()) {
      if (!entry.enabled || d.startRemembered === false) continue;
      try {
        r.#device(entry.sourceId, key, entry).link.start();
      } catch (err) {
        d.log.warn('remote management: a remembered device could not be started', { sourceId: entry.sourceId, error: String(err) });
      }
    }
    return r;
  }

  list(): RemoteDevice[] {
    return [...this.#devices.values()].map((dev) => this.#view(dev));
  }

  async setEnabled(sourceId: string, enabled: boolean, deviceId?: string | null): Promise<RemoteDevice> {
    if (!sourceId.startsWith('serial:') && !sourceId.startsWith(AUDIO_PREFIX)) {
      throw new CoreError('InvalidArguments', `Only boards and microphones can be connected to the platform; "${sourceId}" is neither (the simulator's data is not real).`);
    }
    const key = this.#sourceKey(sourceId);
    const before = this.#config.get(key);
    const entry: RemoteEntry = { sourceId, enabled, deviceId: deviceId === undefined ? (before?.deviceId ?? null) : deviceId, name: before?.name ?? null };
    await this.#config.set(key, entry);
    let dev = this.#devices.get(sourceId);
    const idChanged = dev && dev.entry.deviceId !== entry.deviceId;
    if (dev && (idChanged || !enabled)) dev.link.stop();
    if (!dev || idChanged) {
      if (dev) this.#devices.delete(sourceId);
      dev = this.#device(sourceId, key, entry);
    }
    dev.entry = entry;
    if (enabled) dev.link.start();
    this.#emit(dev);
    return this.#view(dev);
  }

  async rename(sourceId: string, name: string): Promise<RemoteDevice> {
    const dev = this.#devices.get(sourceId);
    if (!dev?.entry.enabled) throw new CoreError('NotFound', `${sourceId} is not connected to the platform; switch "Connect to platform" on first.`);
    const deviceId = this.#deviceId(dev);
    await renameDevice(await this.#d.uploads.management(), deviceId, name);
    dev.entry = { ...dev.entry, name };
    await this.#config.set(dev.key, dev.entry);
    this.#emit(dev);
    return this.#view(dev);
  }

  /** The API key, project or URLs changed: refused and waiting links try again now with them. */
  settingsChanged(): void {
    for (const dev of this.#devices.values()) if (dev.entry.enabled) dev.link.retryNow();
  }

  /**
   * New requests are refused at once; the takes the platform asked for get up to CLOSE_WAIT_MS to
   * finish their length, be saved and uploaded (a person on the platform is waiting for them, and
   * a take stopped early would reach the platform as a complete but shorter sample). Takes still
   * recording after that end now and are kept as incomplete local samples, not uploaded — as after
   * a crash.
   */
  async close(): Promise<void> {
    this.#shuttingDown = true;
    const settled = async (ms: number) => {
      if (!this.#inflight.size) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.#inflight]), new Promise((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    };
    if (this.#inflight.size) this.#d.log.info('remote management: waiting for the samples the platform asked for before closing', { count: this.#inflight.size });
    await settled(CLOSE_WAIT_MS);
    this.#cut.abort();
    this.#closing.abort();
    // A moment for what was cut to be saved and the platform to hear {sample:false} before the links close.
    await settled(2_000);
    for (const dev of this.#devices.values()) dev.link.stop();
    for (const off of this.#offs.splice(0)) off();
  }

  #device(sourceId: string, key: string, entry: RemoteEntry): Device {
    const d = this.#d;
    const deps: BackendDeps = { ...d, stats: (id) => this.#stats.get(id), lost: (id) => this.#lost.get(id) ?? null };
    const backend = sourceId.startsWith(AUDIO_PREFIX)
      ? microphoneBackend(deps, sourceId)
      : d.ports.settingsFor(sourceId.slice('serial:'.length)).mode === 'at'
        ? atBackend(deps, sourceId)
        : linesBackend(deps, sourceId);
    const dev: Device = { sourceId, key, entry, backend, request: null, busy: false, link: null as unknown as RemoteLink };
    dev.link = new RemoteLink({
      connector: d.connector,
      url: () => remoteMgmtUrl(d.settings.get()),
      apiKey: async () => {
        const k = await d.keys.getApiKey(d.settings.get().projectId).catch((err: unknown) => {
          throw new CoreError('Unauthorized', `Cannot read the API key: ${(err as Error).message}`);
        });
        if (!k) throw new CoreError('Unauthorized', 'No API key is set for this project. Enter it in Settings → API key; the device connects then.');
        return k;
      },
      describe: async () => {
        const desc = await backend.describe(this.#defaultId(dev));
        // An official board names itself; a name set here wins over both.
        return dev.entry.deviceId ? { ...desc, deviceId: dev.entry.deviceId } : desc;
      },
      onRequest: (req, reply) => {
        const honour = this.#honour(dev, req, reply);
        this.#inflight.add(honour);
        void honour.finally(() => this.#inflight.delete(honour));
      },
      onStatus: () => this.#emit(dev),
      log: d.log,
      ...d.timing,
    });
    this.#devices.set(sourceId, dev);
    return dev;
  }

  async #honour(dev: Device, req: SampleRequest, reply: Reply): Promise<void> {
    const d = this.#d;
    // The request's key is a secret like the project's: the logger redacts it from now on.
    d.secrets.add(req.hmacKey);
    const refuse = (error: string) => {
      d.log.warn('remote management: sample request refused', { deviceId: this.#deviceId(dev), error });
      reply({ sample: false, error });
    };
    // Busy: the request being honoured stays the one shown. Any other refusal is shown here as
    // the last request's outcome (the device list, connect's sample-failed), not only told to the platform.
    if (this.#shuttingDown) return refuse('Capture Desk is closing on this computer; ask again once it runs again.');
    if (dev.busy) return refuse('This device is busy with another sample the platform asked for; wait for it to finish, then ask again.');
    const refuseShown = (error: string) => {
      refuse(error);
      dev.request = {
        label: req.label, lengthMs: req.lengthMs, sensor: req.sensor, category: categoryOfPath(req.path), path: req.path, stage: 'failed', sampleId: null, sampleIds: [], error,
        collectedSampleCount: req.collectedSampleCount, targetSampleCount: req.targetSampleCount, labelColor: req.labelColor, at: new Date().toISOString(),
      };
      this.#emit(dev);
    };
    const sensors = dev.link.status.description?.sensors ?? [];
    const sensor = req.sensor === null ? sensors[0] : sensors.find((s) => s.name === req.sensor);
    if (!sensor) return refuseShown(req.sensor === null ? 'This device offers no sensor to sample.' : `This device has no sensor "${req.sensor}"; it offers ${sensors.map((s) => `"${s.name}"`).join(', ') || 'none'}.`);
    if (req.lengthMs > sensor.maxSampleLengthS * 1000) {
      return refuseShown(`A ${fmtS(req.lengthMs / 1000)} sample is longer than "${sensor.name}" can take here (at most ${fmtS(sensor.maxSampleLengthS)}); ask for a shorter one.`);
    }
    if (req.label.trim() === '') return refuseShown('The sample request has an empty label; give the sample a label on the platform.');
    dev.busy = true;
    const deviceId = this.#deviceId(dev);
    const at = new Date();
    const request: RemoteRequest = {
      label: req.label, lengthMs: req.lengthMs, sensor: sensor.name, category: categoryOfPath(req.path), path: req.path, stage: 'requested', sampleId: null, sampleIds: [], error: null,
      collectedSampleCount: req.collectedSampleCount, targetSampleCount: req.targetSampleCount, labelColor: req.labelColor, at: at.toISOString(),
    };
    const update = (patch: Partial<RemoteRequest>) => {
      dev.request = { ...dev.request!, ...patch };
      this.#emit(dev);
    };
    dev.request = request;
    this.#emit(dev);
    let accepted = false;
    const send = (m: ProgressMessage) => reply(m);
    try {
      // Unreadable here: the key the platform sent (the project's own) signs instead, and the log says why.
      const projectKey = await d.keys.getHmacKey(d.settings.get().projectId).catch((err: unknown) => {
        d.log.warn('remote management: the project HMAC key could not be read; signing with the key in the request', { error: String(err) });
        return null;
      });
      const ids = await dev.backend.take(
        {
          label: req.label, lengthMs: req.lengthMs, category: request.category, sensor, intervalMs: req.intervalMs,
          note: platformNote(deviceId, at), fallbackHmacKey: projectKey ? undefined : (req.hmacKey || undefined),
          platform: { deviceId, collectedSampleCount: req.collectedSampleCount, targetSampleCount: req.targetSampleCount },
          cut: this.#cut.signal,
        },
        {
          started: () => {
            // Accepted once the source really records: a refusal before that has recorded nothing.
            accepted = true;
            send({ sample: true });
            send({ sampleStarted: true });
            update({ stage: 'recording' });
          },
          reading: (pct) => send({ sampleReading: true, progressPercentage: pct }),
          processing: () => {
            send({ sampleProcessing: true });
            update({ stage: 'saving' });
          },
        },
      );
      update({ sampleId: ids[0]!, sampleIds: ids, stage: 'uploading' });
      // A take kept here and not queued (cut short by closing, held back) is not uploading: the verdict below says why.
      const queued = ids.some((id) => {
        try {
          return d.store.get(id).state !== 'local';
        } catch {
          return false;
        }
      });
      if (queued) send({ sampleUploading: true });
      // A take a board's restart split in parts is finished once every part is on the platform.
      for (const [i, id] of ids.entries()) {
        const verdict = await uploadVerdict({ bus: d.bus, store: d.store, queue: d.uploads.queue }, id, this.#closing.signal);
        if (!verdict.ok) throw new CoreError('Unavailable', ids.length > 1 ? `Part ${i + 1} of ${ids.length} (the board restarted during the take): ${verdict.error}` : verdict.error);
      }
      send({ sampleFinished: true });
      update({ stage: 'finished' });
      d.log.info('remote management: sample finished', { deviceId, sampleIds: ids });
    } catch (err) {
      const error = (err as Error).message;
      if (!accepted) refuse(error);
      else {
        d.log.warn('remote management: sample failed', { deviceId, error });
        send({ sample: false, error });
      }
      update({ stage: 'failed', error });
    } finally {
      dev.busy = false;
      this.#emit(dev);
    }
  }

  #sourceKey(sourceId: string): string {
    if (sourceId.startsWith(AUDIO_PREFIX)) return sourceId;
    const path = sourceId.slice('serial:'.length);
    const sn = this.#d.ports.find(path)?.serialNumber;
    return sn ? `sn:${sn}` : `path:${path}`;
  }

  #defaultId(dev: Device): string {
    if (dev.sourceId.startsWith('serial:')) {
      const sn = this.#d.ports.find(dev.sourceId.slice('serial:'.length))?.serialNumber;
      const fromSn = sn ? serialNumberDeviceId(sn) : null;
      if (fromSn) return fromSn;
    }
    return derivedDeviceId(this.#d.machine, dev.key);
  }

  #deviceId(dev: Device): string {
    return dev.link.status.description?.deviceId ?? dev.entry.deviceId ?? this.#defaultId(dev);
  }

  #view(dev: Device): RemoteDevice {
    const st = dev.link.status;
    const desc = st.description;
    return {
      sourceId: dev.sourceId,
      enabled: dev.entry.enabled,
      deviceId: this.#deviceId(dev),
      deviceType: desc?.deviceType ?? (dev.backend.kind === 'at' ? 'official firmware (not read yet)' : 'CAPTURE_DESK'),
      name: dev.entry.name,
      // "Recording for the platform" while the source records; saving and uploading are the request's own stages.
      state: st.state === 'online' && dev.busy && (dev.request?.stage === 'requested' || dev.request?.stage === 'recording') ? 'recording' : st.state,
      retryInMs: st.retryInMs,
      reason: st.reason,
      sensors: desc?.sensors ?? [],
      baud: desc?.baud ?? null,
      request: dev.request,
    };
  }

  #emit(dev: Device): void {
    this.#d.bus.emit('remote.changed', this.#view(dev));
  }
}

function fmtS(s: number): string {
  return s >= 120 ? `${Math.round(s / 60)} min` : `${Math.round(s * 10) / 10} s`;
}
