import { CoreError } from '../../errors.js';

/**
 * What `AT+CONFIG?` tells about a board. Keys and passwords the firmware prints are reduced to
 * "is one set?": nothing here can leak a secret into a log, a settings file or the renderer.
 */
export interface AtVersion {
  major: number;
  minor: number;
  patch: number;
}

export interface AtSensor {
  name: string;
  /** Null for firmware that lists a sensor by name only and is not one the daemon knows. */
  maxSampleLengthS: number | null;
  frequencies: number[];
}

export interface AtDeviceConfig {
  deviceId: string;
  deviceType: string;
  atVersion: AtVersion;
  /** The fast rate the board offers for data transfer; null when it does not say. */
  transferBaudRate: number | null;
  sensors: AtSensor[];
  snapshot: { hasSnapshot: boolean; resolutions: Array<{ width: number; height: number }> } | null;
  wifi: { present: boolean; connected: boolean; ssid: string } | null;
  sampling: { label: string; intervalMs: number | null; lengthMs: number | null; hmacKeySet: boolean };
  upload: { apiKeySet: boolean; host: string; path: string };
  remote: { url: string; connected: boolean; lastError: string } | null;
}

type Section = 'info' | 'sensors' | 'snapshot' | 'wifi' | 'sampling' | 'upload' | 'remote' | 'other';

const SECTIONS: Array<[RegExp, Section]> = [
  [/^device info$/, 'info'],
  [/^sensors$/, 'sensors'],
  [/^snapshot$/, 'snapshot'],
  [/^wi-?fi$/, 'wifi'],
  [/^sampling parameters$/, 'sampling'],
  [/^upload settings$/, 'upload'],
  [/^remote management$/, 'remote'],
];

// Firmware that predates the "Name: ..., Max sample length: ..." format lists names only; these
// are the values the official daemon assumes for the two it knows.
const LEGACY_SENSORS: Record<string, Omit<AtSensor, 'name'>> = {
  'Built-in accelerometer': { maxSampleLengthS: 5 * 60, frequencies: [62.5, 100] },
  'Built-in microphone': { maxSampleLengthS: 60, frequencies: [16000] },
};

const SENSOR_LINE = /^Name:\s*(.+?)\s*,\s*Max sample length:\s*([\d.]+)\s*s\s*,\s*Frequencies:\s*\[(.*)\]\s*$/i;

/** Parses the lines of `AT+CONFIG?`. Sections may be missing, reordered or padded with spaces. */
export function parseAtConfig(lines: readonly string[]): AtDeviceConfig {
  const config: AtDeviceConfig = {
    deviceId: '',
    deviceType: '',
    atVersion: { major: 1, minor: 0, patch: 0 }, // what the daemon assumes when none is printed
    transferBaudRate: null,
    sensors: [],
    snapshot: null,
    wifi: null,
    sampling: { label: '', intervalMs: null, lengthMs: null, hmacKeySet: false },
    upload: { apiKeySet: false, host: '', path: '' },
    remote: null,
  };
  let section: Section | null = null;
  let sawInfo = false;

  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    const header = /^=+\s*(.*?)\s*=+$/.exec(line);
    if (header) {
      const name = header[1]!.toLowerCase().replace(/\s+/g, ' ');
      section = SECTIONS.find(([re]) => re.test(name))?.[1] ?? 'other';
      if (section === 'info') sawInfo = true;
      if (section === 'wifi') config.wifi ??= { present: false, connected: false, ssid: '' };
      if (section === 'remote') config.remote ??= { url: '', connected: false, lastError: '' };
      if (section === 'snapshot') config.snapshot ??= { hasSnapshot: false, resolutions: [] };
      continue;
    }
    if (section === 'sensors') {
      const sensor = parseSensor(line);
      if (sensor) config.sensors.push(sensor);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon < 0 || section === null) continue;
    const key = line.slice(0, colon).trim().toLowerCase().replace(/\s+/g, ' ');
    const value = line.slice(colon + 1).trim();
    apply(config, section, key, value);
  }

  if (!sawInfo) {
    throw new CoreError(
      'Unavailable',
      'The board did not describe itself (no "Device info" in AT+CONFIG?). Is it running the platform\'s official firmware?',
    );
  }
  return config;
}

function apply(c: AtDeviceConfig, section: Section, key: string, value: string): void {
  switch (section) {
    case 'info':
      if (key === 'id') c.deviceId = value;
      else if (key === 'type') c.deviceType = value;
      else if (key === 'at version') c.atVersion = parseVersion(value);
      else if (key === 'data transfer baudrate') c.transferBaudRate = positiveInt(value);
      return;
    case 'snapshot':
      if (key === 'has snapshot') c.snapshot!.hasSnapshot = value === '1';
      else if (key === 'resolutions') c.snapshot!.resolutions = parseResolutions(value);
      return;
    case 'wifi':
      if (key === 'present') c.wifi!.present = value === '1';
      else if (key === 'connected') c.wifi!.connected = value === '1';
      else if (key === 'ssid') c.wifi!.ssid = value;
      return; // the password is deliberately not kept
    case 'sampling':
      if (key === 'label') c.sampling.label = value;
      else if (key === 'interval') c.sampling.intervalMs = positiveNumber(value);
      else if (key === 'length') c.sampling.lengthMs = positiveNumber(value);
      else if (key === 'hmac key') c.sampling.hmacKeySet = value !== '';
      return;
    case 'upload':
      if (key === 'api key') c.upload.apiKeySet = value !== '';
      else if (key === 'host') c.upload.host = value;
      else if (key === 'path') c.upload.path = value;
      return;
    case 'remote':
      if (key === 'url') c.remote!.url = value;
      else if (key === 'connected') c.remote!.connected = value === '1';
      else if (key === 'last error') c.remote!.lastError = value;
      return;
    default:
      return;
  }
}

function parseSensor(line: string): AtSensor | null {
  const m = SENSOR_LINE.exec(line);
  if (m) {
    const frequencies = m[3]!.split(',').map((f) => Number.parseFloat(f.replace(/hz/i, '').trim())).filter(Number.isFinite);
    return { name: m[1]!, maxSampleLengthS: Number(m[2]), frequencies };
  }
  const legacy = LEGACY_SENSORS[line];
  if (legacy) return { name: line, ...legacy, frequencies: [...legacy.frequencies] };
  return line.includes(':') ? null : { name: line, maxSampleLengthS: null, frequencies: [] };
}

/** "1.3.0" → 1.3.0; "1.8" → 1.8.0. Unreadable text falls back to 1.0.0 like the daemon. */
export function parseVersion(text: string): AtVersion {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return { major: 1, minor: 0, patch: 0 };
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

export function versionAtLeast(v: AtVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

function parseResolutions(value: string): Array<{ width: number; height: number }> {
  const out: Array<{ width: number; height: number }> = [];
  for (const r of value.replace(/[[\]]/g, '').split(',')) {
    const m = /^\s*(\d+)\s*x\s*(\d+)\s*$/i.exec(r);
    if (m) out.push({ width: Number(m[1]), height: Number(m[2]) });
  }
  return out;
}

/** "16.00 ms.", "16.00ms.", "16.00000 ms." → 16. */
function positiveNumber(value: string): number | null {
  const n = Number.parseFloat(value);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** "2000000" → 2000000; "UNKNOWN" → null. */
function positiveInt(value: string): number | null {
  return /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : null;
}
