import { DEMO_SOURCE_ID, type AppInfo, type Source } from './contract/contract.js';
import { CoreError } from './errors.js';
import { systemClock, type Clock } from './clock.js';
import { ensureDataDir } from './data-dir.js';
import { createDispatch, type Dispatch, type Handlers } from './dispatch.js';
import { EventBus, type AnyEventListener } from './event-bus.js';
import { stderrLogger, type Logger } from './log.js';
import type { PortLister } from './serial/port-lister.js';
import type { SerialOpener } from './serial/byte-link.js';
import { PortRegistry } from './serial/port-registry.js';
import { BaudMemory } from './serial/baud/baud-memory.js';
import { createSerialReader } from './serial/serial-reader.js';
import { serialLinesFactory } from './serial/serial-lines-source.js';
import { SettingsStore } from './settings/settings-store.js';
import { StreamHub } from './stream/stream-hub.js';
import { sampleHandlers } from './handlers/samples.js';
import { findHandlers } from './handlers/find.js';
import { uploadHandlers } from './handlers/uploads.js';
import { atBoards as createAtBoards } from './handlers/at-board.js';
import { reviewHandlers } from './handlers/review.js';
import { classifyHandlers } from './handlers/classify.js';
import { modelHandlers } from './handlers/models.js';
import { modelTestHandlers } from './handlers/model-test.js';
import { manualHandlers } from './handlers/manual.js';
import { ModelService } from './model/model-service.js';
import { modelWorkerSpawner, type SpawnModelWorker } from './model/model-runner.js';
import { ClassifyService } from './classify/classify-service.js';
import { SampleStore } from './samples/sample-store.js';
import { startLengthBackfill } from './samples/length-backfill.js';
import { qualityGate } from './samples/quality/policy.js';
import type { Keychain } from './secrets/keychain.js';
import { ProjectKeys } from './secrets/project-keys.js';
import { KnownSecrets } from './secrets/known-secrets.js';
import { keyStatus } from './secrets/key-service.js';
import { collectDiagnostics } from './diagnostics/collect.js';
import { logsDirOf } from './logs/app-log.js';
import { UploadService } from './upload/upload-service.js';
import { FolderWatcher } from './watch/folder-watcher.js';
import { RecordingService } from './capture/recording-service.js';
import { APP_NAME, APP_VERSION } from './version.js';
import type { AudioInput } from './audio/audio-input.js';
import { Microphones } from './audio/microphones.js';
import { recoverRecordings } from './capture/recording-recovery.js';
import { DEFAULT_SAMPLE_RATE } from './audio/audio-supervisor.js';
import { RemoteDevices } from './remote/remote-devices.js';
import { checkConnection } from './upload/connection-check.js';
import { machineKey } from './remote/device-identity.js';
import { wsConnector, type RemoteConnector } from './remote/socket.js';

/** Every piece of hardware the core touches, so tests inject fakes and integration tests the real thing. */
export interface Hardware {
  ports: PortLister;
  clock: Clock;
  /** The OS keychain (keytar) in the shells; tests inject the real Secret Service or a memory one. */
  keychain: Keychain;
  /** Opens serial ports (node-serialport in the shells). */
  serial: SerialOpener;
  /** Microphone capture (the AudioSupervisor and its capture process in the shells). */
  audio: AudioInput;
  /** WebSockets to the platform's remote-management service (the `ws` package unless a test injects one). */
  remote: RemoteConnector;
  /** Starts the worker thread a model export runs in (the bundled model-worker.js unless a test passes its own). */
  modelWorker: SpawnModelWorker;
}

export interface CoreOptions {
  dataDir: string;
  shell: AppInfo['shell'];
  hardware: Partial<Hardware> & Pick<Hardware, 'ports' | 'keychain'>;
  /** Start the upload queue (default true); the CLI's one-shot commands run their own. */
  uploads?: boolean;
  log?: Logger;
  /** Learns every key the core reads or stores; the shells' loggers redact with it (see logs/app-log.ts). */
  secrets?: KnownSecrets;
  /** This computer, for device ids derived from it (default: the machine id, else the host name). */
  machine?: string;
  /** Remote-management link timing; tests shorten it. */
  remoteTiming?: { pingMs?: number; pongTimeoutMs?: number; backoff?: { baseMs: number; maxMs: number } };
  /**
   * Connect the sources remembered with "Connect to platform" on (default true). `capture-desk
   * connect` says false: it connects the sources on its command line, and only those.
   */
  remoteStartRemembered?: boolean;
  /** The user manual's folder (resources/manual, see handlers/manual.ts findManualDir); null or absent: not installed. */
  manualDir?: string | null;
  /** Said by app.info on every start (AppInfo.shellWarning): `serve --insecure-http` serving other machines in clear text. */
  shellWarning?: string | null;
}

export interface Core {
  dispatch: Dispatch;
  onEvent(listener: AnyEventListener): () => void;
  close(): Promise<void>;
}

const noSerial: SerialOpener = {
  open: async () => {
    throw new CoreError('Unavailable', 'This shell cannot open serial ports.');
  },
  exists: async () => false,
};

/** The composition root: the only place that knows which implementation backs which seam. */
export async function createCore(opts: CoreOptions): Promise<Core> {
  const log = opts.log ?? stderrLogger();
  const clock = opts.hardware.clock ?? systemClock;
  const dataDir = await ensureDataDir(opts.dataDir);
  const secrets = opts.secrets ?? new KnownSecrets();
  const bus = new EventBus();
  const settings = await SettingsStore.open(dataDir, log);
  const streams = new StreamHub(bus, clock);
  const ports = new PortRegistry(dataDir, opts.hardware.ports, opts.hardware.serial ?? noSerial, log);
  await ports.load();
  await ports.refresh();
  // Rates found with Auto, per board as the port list knows it (serial number, else vendor:product and path).
  const bauds = await BaudMemory.open(dataDir, async (path) => ports.find(path), log);
  streams.register(
    'serial:',
    serialLinesFactory({
      registry: ports,
      bauds,
      opener: opts.hardware.serial ?? noSerial,
      clock,
      log,
      createReader: (o) => createSerialReader({ ...o, units: null }),
    }),
  );
  // Device changes re-send the source list; listSources and the recordings come below.
  let sourcesChanged = () => {};
  let recordingOf = (_sourceId: string) => false;
  /** The first microphone list while it is still being read (a slow machine, or a stuck sound system). */
  let firstMicList: Promise<unknown> | null = null;
  const mics = opts.hardware.audio
    ? await Microphones.open({ input: opts.hardware.audio, dataDir, bus, log, stopSource: (id) => streams.stop(id), isRecording: (id) => recordingOf(id), onDevicesChanged: () => sourcesChanged() })
    : null;
  if (mics) {
    streams.register('audio:', mics.factory);
    // The first list is waited for a moment only: a stuck sound system (see audio/stuck-audio.ts)
    // must not hold up the rest of the app. A list that comes later is sent as a sources change.
    const first = mics.refresh();
    firstMicList = first;
    const inTime = await Promise.race([first.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000).unref())]);
    if (!inTime) void first.then(() => sourcesChanged());
    void first.finally(() => (firstMicList = null));
  }
  // Every new sample (recording, AT read-back, drop, watched folder) is checked where it is indexed.
  const store = await SampleStore.open(dataDir, log, { quality: qualityGate(() => settings.get()) });
  const keys = new ProjectKeys(opts.hardware.keychain, secrets);
  // Recordings the last run did not get to finish become incomplete samples before anything new starts.
  await recoverRecordings(store, log, async () => (await keys.getHmacKey(settings.get().projectId)) ?? undefined);
  const uploads = new UploadService({ store, settings, keys, bus, log });
  if (opts.uploads !== false) uploads.start();
  // Classification on the platform; takes are noted as they are saved and, with the capture option
  // on, classified once the platform confirmed their upload (the queue announces that).
  const classifier = new ClassifyService({
    store,
    settings,
    management: () => uploads.management(),
    emit: (s) => bus.emit('samples.classifyState', s),
    announce: (ids) => uploads.announce(ids),
    log,
  });
  bus.on('samples.changed', () => classifier.uploadsChanged());
  classifier.uploadsChanged();
  const recordings = new RecordingService({
    hub: streams,
    store,
    bus,
    log,
    deviceName: () => settings.get().deviceName,
    hmacKey: async () => (await keys.getHmacKey(settings.get().projectId)) ?? undefined,
    onSaved: (ids, queued) => {
      classifier.noteTakes(ids);
      if (queued) uploads.queue.wake();
      uploads.announce(ids);
    },
    audio: mics && opts.hardware.audio ? { input: opts.hardware.audio, preRollMs: () => mics.settings().preRollMs } : undefined,
  });
  recordingOf = (id) => recordings.isRecording(id);
  const atBoards = createAtBoards({
    opener: opts.hardware.serial ?? noSerial,
    ports,
    hub: streams,
    store,
    bus,
    log,
    hmacKey: async () => (await keys.getHmacKey(settings.get().projectId)) ?? undefined,
    onSaved: (id, queued) => {
      classifier.noteTakes([id]);
      if (queued) uploads.queue.wake();
      uploads.announce([id]);
    },
  });
  const remote = await RemoteDevices.open({
    dataDir,
    connector: opts.hardware.remote ?? wsConnector,
    settings,
    keys,
    secrets,
    store,
    uploads,
    log,
    machine: opts.machine ?? machineKey(),
    hub: streams,
    bus,
    recordings,
    ports,
    opener: opts.hardware.serial ?? noSerial,
    at: atBoards,
    mics,
    ...(opts.remoteTiming ? { timing: opts.remoteTiming } : {}),
    startRemembered: opts.remoteStartRemembered ?? true,
  });
  // The project's exported model run here: live verdicts, catch mode, takes classified as they are saved.
  const models = new ModelService({
    dataDir,
    hub: streams,
    audio: opts.hardware.audio,
    store,
    bus,
    log,
    spawn: opts.hardware.modelWorker ?? modelWorkerSpawner(),
    deviceName: () => settings.get().deviceName,
    keep: (c) => classifier.kept.keep(c),
    onSaved: (ids, queued) => {
      classifier.noteTakes(ids);
      if (queued) uploads.queue.wake();
      uploads.announce(ids);
    },
  });
  const review = reviewHandlers({
    store,
    bus,
    hmacKey: async () => (await keys.getHmacKey(settings.get().projectId)) ?? undefined,
    announce: (ids) => uploads.announce(ids),
    projectWindowMs: () => settings.get().projectWindowMs,
  });
  const watcher = await FolderWatcher.open({
    dataDir,
    store,
    log,
    onSamplesAdded: (ids) => {
      uploads.queue.enqueue(ids);
      uploads.announce(ids);
    },
    onError: (folderId, path, message) => bus.emit('watch.error', { folderId, path, message }),
  });

  const listSources = async (): Promise<Source[]> => {
    // The first asker waits a little longer for the microphones (bounded: a stuck list is time-boxed).
    if (firstMicList) await Promise.race([firstMicList, new Promise((r) => setTimeout(r, 6000).unref())]);
    const simulated: Source = {
      id: DEMO_SOURCE_ID,
      kind: 'simulated',
      name: 'Simulated accelerometer',
      detail: 'simulated – not real data',
      streaming: streams.isStreaming(DEMO_SOURCE_ID),
    };
    // A machine without udev still gets the simulator: the registry logs listing failures.
    const serial = ports.ports();
    return [
      simulated,
      ...serial.map((p) => {
        const id = `serial:${p.path}`;
        const info = streams.isStreaming(id) ? streams.info(id) : undefined;
        return {
          id,
          kind: 'serial' as const,
          name: p.friendlyName,
          detail: p.serialNumber ? `S/N ${p.serialNumber}` : p.path,
          streaming: streams.isStreaming(id),
          ...(p.board ? { board: p.board } : {}),
          ...(p.addedByPath ? { addedByPath: true } : {}),
          // A rate still being measured is a placeholder in the stream's info: said only once measured.
          ...(info ? { stream: { axes: info.axes.length, rateHz: streams.reading(id)?.rate() === null ? null : info.rateHz, ...(info.baud ? { baud: info.baud.rate } : {}) } } : {}),
        };
      }),
      ...(mics?.sources((id) => streams.isStreaming(id)) ?? []),
    ];
  };
  // Now also on every serial stream's start and stop (shutdown included): a list that cannot be made is logged, never an unhandled rejection.
  sourcesChanged = () => void listSources().then((list) => bus.emit('sources.changed', list), (err: unknown) => log.warn('could not list the sources', { error: String(err) }));
  // A serial port's entry says what its stream says (axes, rate): said again when that changes.
  for (const event of ['stream.state', 'stream.info'] as const) bus.on(event, (e) => void (e.sourceId.startsWith('serial:') && sourcesChanged()));

  const handlers: Handlers = {
    'app.info': () => ({
      name: APP_NAME,
      version: APP_VERSION,
      shell: opts.shell,
      platform: process.platform,
      dataDir,
      nodeVersion: process.versions.node,
      indexRebuild: store.indexRebuild,
      shellWarning: opts.shellWarning ?? null,
    }),
    'app.diagnostics': () =>
      collectDiagnostics({
        app: { name: APP_NAME, version: APP_VERSION, shell: opts.shell },
        dataDir,
        logsDir: logsDirOf(dataDir),
        serialPorts: () => ports.refresh(),
        addedPaths: () => ports.addedPaths(),
        audioDevices: mics ? () => mics.lastListing() : null,
        keyStatus: () => keyStatus(keys, settings.get().projectId),
        queue: () => uploads.queue.status(),
        flaggedSamples: () => store.count({ flagged: true }),
        settings: () => settings.get(),
        secrets,
      }),
    'settings.get': () => settings.get(),
    'settings.set': async (patch) => {
      const next = await settings.set(patch);
      bus.emit('settings.changed', next);
      uploads.queue.setConcurrency(next.uploadConcurrency);
      // New URL or project: a queue paused for the old one may work now.
      if (uploads.queue.status().paused) uploads.queue.resume();
      remote.settingsChanged();
      return next;
    },
    'serial.listPorts': () => ports.refresh(),
    'serial.addPath': async ({ path }) => {
      const info = await ports.addPath(path);
      bus.emit('sources.changed', await listSources());
      return info;
    },
    'serial.removePath': async ({ path }) => {
      // Forgetting a port ends its stream; a take from it is the person's data, so it is never cut short here.
      const id = `serial:${path}`;
      if (recordings.isRecording(id)) throw new CoreError('Busy', `A take is recording from ${path}; stop it before forgetting the port.`);
      await streams.stop(id);
      await ports.removePath(path);
      bus.emit('sources.changed', await listSources());
      return { removed: true };
    },
    'serial.getSettings': ({ path }) => ports.settingsFor(path),
    'serial.setSettings': ({ path, settings: patch }) => ports.saveSettings(path, patch),
    'sources.list': listSources,
    'stream.start': ({ sourceId, rateHz }) => streams.start(sourceId, rateHz),
    'stream.stop': async ({ sourceId }) => ({ stopped: await streams.stop(sourceId) }),
    ...sampleHandlers(store, uploads),
    ...findHandlers(store, uploads, review.jobs, models),
    ...withKeyChanges(uploadHandlers(uploads, keys, settings), () => remote.settingsChanged()),
    'project.check': async () => {
      const s = settings.get();
      const apiKey = await keys.getApiKey(s.projectId).then((k) => ({ key: k, problem: null }), (err: unknown) => ({ key: null, problem: `The API key could not be read from the keychain: ${(err as Error).message}` }));
      const hmac = await keys.getHmacKey(s.projectId).then((k): 'set' | 'not set' => (k ? 'set' : 'not set'), (): 'unknown' => 'unknown');
      return checkConnection({ ingestionUrl: s.ingestionUrl, managementUrl: s.managementUrl, projectId: s.projectId, apiKey: apiKey.key, apiKeyProblem: apiKey.problem, hmacKey: hmac });
    },
    'remote.list': () => remote.list(),
    'remote.setEnabled': ({ sourceId, enabled, deviceId }) => remote.setEnabled(sourceId, enabled, deviceId),
    'remote.rename': ({ sourceId, name }) => remote.rename(sourceId, name),
    'record.start': (o) => recordings.start(o),
    'record.stop': ({ sessionId }) => recordings.stop(sessionId),
    'record.active': () => recordings.active(),
    'record.mark': ({ sessionId, label }) => recordings.mark(sessionId, label),
    ...atBoards.handlers,
    ...review.handlers,
    ...classifyHandlers(classifier, bus, models),
    ...modelHandlers(models),
    ...modelTestHandlers({ store, kept: classifier.kept, models, jobs: review.jobs, announce: (ids) => uploads.announce(ids) }),
    ...manualHandlers(opts.manualDir ?? null),
    'audio.settings': () => mics?.settings() ?? { deviceId: null, sampleRate: DEFAULT_SAMPLE_RATE, preRollMs: 0 },
    'audio.status': () => mics?.status() ?? { host: null, problem: 'This shell has no microphone capture.' },
    'audio.setSettings': (patch) => {
      if (!mics) throw new CoreError('Unavailable', 'This shell has no microphone capture.');
      return mics.setSettings(patch);
    },
    'watch.list': () => watcher.list(),
    'watch.add': (input) => watcher.add(input),
    'watch.remove': async ({ id }) => {
      await watcher.remove(id);
      return { removed: true };
    },
    'watch.setEnabled': ({ id, enabled }) => watcher.setEnabled(id, enabled),
    'watch.pending': ({ id }) => watcher.pending(id),
    'watch.importPending': ({ id, paths }) => watcher.importPending(id, paths),
  };

  // Samples indexed before lengths were read from file headers get theirs in the background.
  const lengths = startLengthBackfill(store, log, (ids) => uploads.announce(ids));
  // Boards and microphones plugged in or out show up without a restart.
  ports.watch(2000, sourcesChanged);
  mics?.watch();
  log.info('core started', { dataDir, shell: opts.shell });
  return {
    dispatch: createDispatch(handlers, log),
    onEvent: (l) => bus.onAny(l),
    async close() {
      ports.stop();
      review.jobs.cancelAll();
      // Links first: no new request may start while recordings are being saved.
      await remote.close();
      await recordings.stopAll();
      await models.close();
      await streams.stopAll();
      await mics?.close();
      await watcher.close();
      await classifier.close();
      await lengths.stop();
      await uploads.stop();
      await store.close();
    },
  };
}

/** A new or cleared key may let a refused platform device in: keys.set and keys.clear say so. */
function withKeyChanges<H extends Partial<Handlers>>(h: H, changed: () => void): H {
  const wrap = <F extends (...a: never[]) => unknown>(f: F | undefined) =>
    f && (async (...a: Parameters<F>) => {
      const out = await f(...a);
      changed();
      return out;
    });
  return { ...h, ...(h['keys.set'] ? { 'keys.set': wrap(h['keys.set']) } : {}), ...(h['keys.clear'] ? { 'keys.clear': wrap(h['keys.clear']) } : {}) };
}
