import { arch, release, version as osVersion } from 'node:os';
import type { AppInfo, KeyStatus, QueueStatus, SerialPortInfo, Settings } from '../contract/contract.js';
import type { AudioDevice } from '../audio/worker-protocol.js';
import type { KnownSecrets } from '../secrets/known-secrets.js';
import type { Diagnostics, DiagnosticsReport } from '../contract/diagnostics-schema.js';
import { diagnosticsText } from './format.js';

/** Where each part of the report comes from; app.ts wires the real services in. */
export interface DiagnosticsSources {
  app: { name: string; version: string; shell: AppInfo['shell'] };
  dataDir: string;
  logsDir: string;
  /** The ports seen now (the system's list, refreshed) and the paths the user added by hand. */
  serialPorts(): Promise<SerialPortInfo[]>;
  addedPaths(): string[];
  /**
   * The microphones as the app last listed them (kept current by its device watch), so a report
   * never starts the capture process or waits on it; null: this shell has no microphone capture.
   */
  audioDevices: (() => { devices: AudioDevice[]; problem: string | null; host?: string | null }) | null;
  keyStatus(): Promise<KeyStatus>;
  queue(): QueueStatus;
  flaggedSamples(): number;
  settings(): Settings;
  /** The whole answer is redacted against these before it leaves the core. */
  secrets: KnownSecrets;
  /** How long the keychain may take (a locked one waits for a password) before the report says "no answer". Default 10 s. */
  timeoutMs?: number;
}

/** Each part is gathered on its own: a broken keychain or sound system shows up in the report instead of failing it. */
export async function collectDiagnostics(src: DiagnosticsSources): Promise<Diagnostics> {
  const timeoutMs = src.timeoutMs ?? 10_000;
  const [ports, keychain] = await Promise.all([src.serialPorts(), keychainPart(src.keyStatus, timeoutMs)]);
  const audio = audioPart(src.audioDevices);
  const added = new Set(src.addedPaths());
  const queue = src.queue();
  const settings = src.settings();
  const v = process.versions as NodeJS.ProcessVersions & { electron?: string; chrome?: string };
  const report: DiagnosticsReport = {
    generatedAt: new Date().toISOString(),
    app: src.app,
    versions: { node: v.node, electron: v.electron ?? null, chrome: v.chrome ?? null, v8: v.v8, napi: v.napi ?? null },
    os: { platform: process.platform, release: release(), arch: arch(), version: osVersion() },
    paths: { dataDir: src.dataDir, logsDir: src.logsDir },
    serial: {
      ports: ports.map((p) => ({ path: p.path, name: p.friendlyName, addedByPath: added.has(p.path), vendorId: p.vendorId ?? null, productId: p.productId ?? null })),
    },
    audio,
    keychain,
    queue: { paused: queue.paused, pausedReason: queue.pausedReason, online: queue.online, inFlight: queue.inFlight },
    samples: {
      total: Object.values(queue.counts).reduce((a, b) => a + b, 0),
      byState: queue.counts,
      flagged: src.flaggedSamples(),
    },
    settings: {
      ingestionUrl: withoutCredentials(settings.ingestionUrl),
      managementUrl: withoutCredentials(settings.managementUrl),
      projectId: settings.projectId,
      uploadConcurrency: settings.uploadConcurrency,
      qualityHold: settings.qualityHold,
    },
  };
  // Nothing above should hold a key; a device or path named after one still comes out «redacted».
  const redacted = JSON.parse(JSON.stringify(report, (_k, value: unknown) => (typeof value === 'string' ? src.secrets.redact(value) : value))) as DiagnosticsReport;
  return { report: redacted, text: diagnosticsText(redacted) };
}

function audioPart(list: DiagnosticsSources['audioDevices']): DiagnosticsReport['audio'] {
  if (!list) return { available: false, devices: [], problem: 'this shell has no microphone capture', host: null };
  const { devices, problem, host } = list();
  return { available: problem === null || devices.length > 0, devices: devices.map((d) => ({ name: d.name, default: d.default })), problem, host: host ?? null };
}

async function keychainPart(status: () => Promise<KeyStatus>, timeoutMs: number): Promise<DiagnosticsReport['keychain']> {
  try {
    const s = await within(status(), timeoutMs, 'the keychain (is it locked and waiting for a password?)');
    return { available: s.keychainProblem === null, apiKey: s.apiKey, hmacKey: s.hmacKey, problem: s.keychainProblem };
  } catch (err) {
    return { available: false, apiKey: 'unknown', hmacKey: 'unknown', problem: messageOf(err) };
  }
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from ${what} within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A URL typed as https://user:password@host would otherwise carry a password into a bug report. */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return '(not a valid URL)';
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
