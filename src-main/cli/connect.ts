import { join } from 'node:path';
import type { MethodInput, MethodName, MethodOutput, RemoteDevice, Settings, Source } from '../core/contract/contract.js';
import { defaultDataDir, ensureDataDir } from '../core/data-dir.js';
import { CoreError } from '../core/errors.js';
import { LOG_FILE_NAMES, openAppLog } from '../core/logs/app-log.js';
import { API_KEY_ENV, checkKey, ProjectKeys, projectAccount, resolveApiKey } from '../core/secrets/project-keys.js';
import { UsageError } from './args.js';
import { booleans, parseCommand, strings } from './flags.js';
import { ConnectReporter } from './connect-events.js';
import { parseBaudFlag, parseIntFlag } from './options.js';

export const HMAC_KEY_ENV = 'CAPTURE_DESK_HMAC_KEY';

export const CONNECT_USAGE = `Usage: capture-desk connect [--port PATH]... [--mode lines|at|nordic] [--baud auto|N] [--microphone [NAME]]
                            [--device-id ID] [--name NAME] [--remote-mgmt-url URL] [--ingestion-url URL]
                            [--management-url URL] [--project-id N] [--api-key K] [--hmac-key K]
                            [--data-dir DIR] [--json]

Connects boards and microphones to the platform as devices (remote management), as the
platform's daemon, data forwarder and Linux client do: a sample asked for on the platform ("Record
new data", or the API's start-sampling) is recorded here, kept in the data directory and uploaded
once. Runs until Ctrl+C or SIGTERM, which finishes or keeps what is being recorded (exit 0). What
happens goes to stderr; with --json, one JSON line per event also goes to stdout. Exit 1 when the
platform refuses the API key. The log is <data dir>/logs/${LOG_FILE_NAMES.connect}.

Options:
  --port PATH            a serial board to connect (repeat for more boards), e.g. /dev/ttyACM0
  --mode lines|at|nordic lines: streaming boards, numbers per line or Nordic's data forwarder,
                         told from the stream (default);
                         nordic: Nordic's data forwarder only (COBS/CBOR frames);
                         at: the platform's official firmware (AT commands)
  --baud auto|N          baud rate of the boards: auto (default) finds it from what each board
                         prints (remembered per board); N forces it (AT mode: 115200 unless set)
  --microphone [NAME]    connect a microphone: a name or id from "capture-desk devices audio"
                         (default: the system default input)
  --device-id ID         the id the platform knows the device by (one source only; remembered
                         for the source; default: the id given before, else an official board's
                         own id, a USB board's serial number, else one derived from this computer
                         and the port or microphone)
  --name NAME            rename the device on the platform once it is online (one source only)
  --remote-mgmt-url URL  the remote-management service, ws:// or wss:// (default
                         wss://remote-mgmt.edgeimpulse.com; port 4802 of the ingestion host when
                         that is not the platform's own)
  --ingestion-url URL    the ingestion service the samples go to
  --management-url URL   the management API, ending in /v1 (used by --name)
  --project-id N         the project (the URLs and the project are remembered in settings)
  --api-key K            the project's API key (or ${API_KEY_ENV}, or the keychain)
  --hmac-key K           sign sensor data with the project's HMAC key (or ${HMAC_KEY_ENV}, or the
                         keychain; else the key the platform sends with each request)
                         Keys given here or in the environment are never stored or logged.
  --data-dir DIR         data directory (default: ${defaultDataDir()})
  --json                 one JSON line per event on stdout: connected, sample-requested,
                         sample-saved, sample-finished, sample-failed, disconnected, reconnecting
  -h, --help             show this help
`;

/** `--microphone` takes an optional value, which parseArgs cannot say: it is taken out first. */
function takeMicrophone(argv: string[]): { rest: string[]; microphone: { name: string | null } | null } {
  const rest: string[] = [];
  let microphone: { name: string | null } | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--microphone') {
      const next = argv[i + 1];
      const name = next !== undefined && !next.startsWith('-') ? next : null;
      if (name !== null) i++;
      microphone = { name };
    } else if (a.startsWith('--microphone=')) microphone = { name: a.slice('--microphone='.length) || null };
    else rest.push(a);
  }
  return { rest, microphone };
}

function keyFrom(flag: string | undefined, envName: string, what: string): string | null {
  if (flag !== undefined) return checkKey(`The ${what} given with --${what === 'API key' ? 'api-key' : 'hmac-key'}`, flag);
  const env = process.env[envName];
  return env !== undefined && env.trim() !== '' ? checkKey(`The ${what} in ${envName}`, env) : null;
}

export async function connectCommand(argv: string[]): Promise<number> {
  const { rest, microphone } = takeMicrophone(argv);
  const parsed = parseCommand(rest, CONNECT_USAGE, {
    port: { type: 'string', multiple: true },
    mode: { type: 'string', default: 'lines' },
    ...strings('baud', 'device-id', 'name', 'remote-mgmt-url', 'ingestion-url', 'management-url', 'project-id', 'api-key', 'hmac-key', 'data-dir'),
    ...booleans('json'),
  });
  if (!parsed) return 0;
  const { values: v } = parsed;
  const ports = v.port ?? [];
  if (ports.some((p) => p.trim() === '')) throw new UsageError('--port must not be empty.');
  const count = ports.length + (microphone ? 1 : 0);
  if (count === 0) throw new UsageError('give at least one source: --port PATH (repeatable) and/or --microphone [NAME].');
  if (v.mode !== 'lines' && v.mode !== 'at' && v.mode !== 'nordic') throw new UsageError(`--mode must be "lines" or "at", or "nordic" for Nordic's data forwarder; got "${v.mode}".`);
  const baudRate = parseBaudFlag(v.baud);
  const deviceId = v['device-id'];
  if (deviceId !== undefined && !/^[\x21-\x7e]{1,128}$/.test(deviceId)) throw new UsageError('--device-id must be 1 to 128 printable characters without spaces.');
  if (count !== 1 && (deviceId !== undefined || v.name !== undefined)) {
    throw new UsageError(`--device-id and --name name one device: give them with exactly one source (got ${count}).`);
  }
  if (v.name !== undefined && v.name.trim() === '') throw new UsageError('--name must not be empty.');
  const patch: Partial<Settings> = {};
  if (v['remote-mgmt-url'] !== undefined) patch.remoteMgmtUrl = url(v['remote-mgmt-url'], '--remote-mgmt-url', /^wss?:\/\/[^\s/]+/i, 'ws:// or wss://');
  if (v['ingestion-url'] !== undefined) patch.ingestionUrl = url(v['ingestion-url'], '--ingestion-url', /^https?:\/\/[^\s/]+/i, 'http:// or https://');
  if (v['management-url'] !== undefined) patch.managementUrl = url(v['management-url'], '--management-url', /^https?:\/\/[^\s/]+/i, 'http:// or https://');
  if (v['project-id'] !== undefined) patch.projectId = parseIntFlag('--project-id', v['project-id'], 0, 1, Number.MAX_SAFE_INTEGER);
  let apiKey: string | null;
  let hmacKey: string | null;
  try {
    apiKey = keyFrom(v['api-key'], API_KEY_ENV, 'API key');
    hmacKey = keyFrom(v['hmac-key'], HMAC_KEY_ENV, 'HMAC key');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }

  // The core and the hardware load only now: a usage error is said without them.
  const [{ createCore }, { AudioSupervisor }, { keytarKeychain }, { overlayKeychain }, { serialportLister }, { serialportOpener }, { SettingsStore }] = await Promise.all([
    import('../core/app.js'),
    import('../core/audio/audio-supervisor.js'),
    import('../core/secrets/keychain.js'),
    import('../core/secrets/overlay-keychain.js'),
    import('../core/serial/serialport-lister.js'),
    import('../core/serial/serialport-opener.js'),
    import('../core/settings/settings-store.js'),
  ]);
  const dataDir = await ensureDataDir(v['data-dir'] ?? defaultDataDir());
  // The log file holds everything; stderr is for the sentences below (and errors).
  const appLog = openAppLog({
    dataDir,
    fileName: LOG_FILE_NAMES.connect,
    base: { shell: 'cli', command: 'connect' },
    stderr: (text) => {
      if (!text.startsWith('{') || /"level":"error"/.test(text)) process.stderr.write(text);
    },
  });
  const log = appLog.log;
  appLog.secrets.add(apiKey);
  appLog.secrets.add(hmacKey);
  const settingsNow = (await SettingsStore.open(dataDir, log)).get();
  const projectId = patch.projectId !== undefined ? patch.projectId : settingsNow.projectId;
  // Keys from a flag or the environment answer for this run's project from memory: never stored.
  const overlay = new Map<string, string>();
  if (apiKey) overlay.set(projectAccount(projectId, 'api-key'), apiKey);
  if (hmacKey) overlay.set(projectAccount(projectId, 'hmac-key'), hmacKey);
  const keychain = overlayKeychain(keytarKeychain(), overlay);
  if (!apiKey) {
    // Said now, before any hardware is opened, rather than as a refusal after it.
    const found = await resolveApiKey({ projectId, keys: new ProjectKeys(keychain, appLog.secrets), env: {} }).catch((err: unknown) => err as Error);
    if (found instanceof Error) {
      await appLog.close();
      process.stderr.write(`capture-desk connect: ${found.message}\n`);
      return 1;
    }
  }

  const core = await createCore({
    dataDir,
    shell: 'cli',
    hardware: {
      ports: serialportLister,
      keychain,
      serial: serialportOpener,
      // Only when asked: the audio capture aborts the process on a machine without a capture device.
      ...(microphone ? { audio: new AudioSupervisor({ log }) } : {}),
    },
    log,
    secrets: appLog.secrets,
    remoteStartRemembered: false,
  });
  const call = async <M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> => {
    const r = await core.dispatch(method, input);
    if (!r.ok) throw new CoreError(r.error.code, r.error.message, r.error.details);
    return r.value as MethodOutput<M>;
  };

  let finish!: (how: 'signal' | 'refused') => void;
  const finished = new Promise<'signal' | 'refused'>((resolve) => (finish = resolve));
  const names = new Map<string, string>();
  const reporter = new ConnectReporter({
    json: Boolean(v.json),
    out: (line) => void process.stdout.write(line),
    err: (line) => void process.stderr.write(line),
    sourceName: (id) => names.get(id) ?? id,
    firstOnline: v.name === undefined ? undefined : async (dev) => {
      try {
        return await call('remote.rename', { sourceId: dev.sourceId, name: v.name! });
      } catch (err) {
        process.stderr.write(`capture-desk connect: could not rename ${dev.deviceId} to "${v.name}": ${(err as Error).message}\n`);
        return dev;
      }
    },
    refused: (dev) => {
      process.stderr.write(
        `capture-desk connect: the platform refused ${names.get(dev.sourceId) ?? dev.sourceId} (device ${dev.deviceId}): ${dev.reason ?? 'no reason given'}\n` +
          `Check the project's API key (--api-key, ${API_KEY_ENV} or the keychain, for ${projectId === null ? 'the default project' : `project ${projectId}`}).\n`,
      );
      finish('refused');
    },
  });
  const mine = new Set<string>();
  const offEvents = core.onEvent((name, payload) => {
    if (name === 'remote.changed' && mine.has((payload as RemoteDevice).sourceId)) reporter.handle(payload as RemoteDevice);
  });
  const onSignal = () => finish('signal');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let code = 0;
  try {
    if (Object.keys(patch).length) await call('settings.set', patch);
    const s = await call('settings.get', {});
    process.stderr.write(`Connecting ${count === 1 ? 'one source' : `${count} sources`} to the platform (project ${s.projectId ?? 'not set'}; log: ${join(appLog.logsDir, LOG_FILE_NAMES.connect)})\n`);
    for (const path of ports) {
      const listed = (await call('sources.list', {})).some((x) => x.id === `serial:${path}`);
      if (!listed) await call('serial.addPath', { path });
      await call('serial.setSettings', { path, settings: { mode: v.mode, baudRate } });
      const sourceId = `serial:${path}`;
      names.set(sourceId, path);
      mine.add(sourceId);
      await call('remote.setEnabled', { sourceId, enabled: true, ...(deviceId !== undefined ? { deviceId } : {}) });
    }
    if (microphone) {
      const mic = pickMicrophone(await call('sources.list', {}), microphone.name);
      names.set(mic.id, `microphone "${mic.name}"`);
      mine.add(mic.id);
      await call('remote.setEnabled', { sourceId: mic.id, enabled: true, ...(deviceId !== undefined ? { deviceId } : {}) });
    }
    if ((await finished) === 'refused') code = 1;
    else process.stderr.write('Stopping: finishing what is being recorded…\n');
  } catch (err) {
    process.stderr.write(`capture-desk connect: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 1;
  }

  // As serve: closing waits for recordings to be saved; a second signal or 15 s end it anyway.
  const force = (why: string) => () => {
    log.error('shutdown did not finish; exiting', { why });
    process.exit(1);
  };
  const deadline = setTimeout(force('15 s passed'), 15_000);
  deadline.unref();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.once('SIGINT', force('second signal'));
  process.once('SIGTERM', force('second signal'));
  await core.close();
  await reporter.settled();
  offEvents();
  await appLog.close();
  clearTimeout(deadline);
  // Everything is closed; whatever still holds the event loop (a serial port's reader) is a leak.
  setTimeout(() => process.exit(code), 3000).unref();
  return code;
}

function url(value: string, flag: string, pattern: RegExp, kind: string): string {
  const u = value.trim();
  if (!pattern.test(u)) throw new UsageError(`${flag} must be a ${kind} URL; got "${value}".`);
  return u;
}

/** By id (with or without "audio:"), else by exact name, else a name containing it; none given: the system default. */
function pickMicrophone(sources: Source[], name: string | null): Source {
  const mics = sources.filter((s) => s.kind === 'audio');
  if (!mics.length) throw new CoreError('NotFound', 'No microphone found. Plug one in (and check that the sound server, e.g. PulseAudio or PipeWire, is running).');
  const found = name === null
    ? (mics.find((s) => s.default) ?? mics[0])
    : (mics.find((s) => s.id === name || s.id === `audio:${name}`) ?? mics.find((s) => s.name === name) ?? mics.find((s) => s.name.toLowerCase().includes(name.toLowerCase())));
  if (!found) throw new CoreError('NotFound', `No microphone "${name}". There are: ${mics.map((s) => `"${s.name}" (${s.id.replace(/^audio:/, '')})`).join(', ')}.`);
  return found;
}
