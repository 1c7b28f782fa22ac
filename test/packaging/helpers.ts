// Helpers for packaging.test.ts: a udev rules parser, a PNG checker and a child-process runner.
import { spawn } from 'node:child_process';
import { crc32, inflateSync } from 'node:zlib';

// ---------------------------------------------------------------------------------------------
// udev rules (man 7 udev): every rule is one line of comma-separated `KEY<op>"value"` pairs.

export interface UdevPair {
  key: string; // e.g. ATTRS{idVendor}
  name: string; // e.g. ATTRS
  op: string;
  value: string;
}
export interface UdevRule {
  line: number;
  pairs: UdevPair[];
}

const MATCH_OPS = new Set(['==', '!=']);
const ASSIGN_OPS = new Set(['=', '+=', '-=', ':=']);
// Keys that may only be compared, only be assigned, or both (man 7 udev, systemd 252).
const MATCH_ONLY = new Set([
  'ACTION', 'DEVPATH', 'KERNEL', 'KERNELS', 'SUBSYSTEM', 'SUBSYSTEMS', 'DRIVER', 'DRIVERS',
  'ATTR', 'ATTRS', 'SYSCTL', 'TAGS', 'TEST', 'PROGRAM', 'RESULT', 'CONST',
]);
const ASSIGN_ONLY = new Set([
  'OWNER', 'GROUP', 'MODE', 'SECLABEL', 'RUN', 'LABEL', 'GOTO', 'IMPORT', 'OPTIONS', 'WAIT_FOR',
]);
const EITHER = new Set(['ENV', 'TAG', 'NAME', 'SYMLINK']);
// Keys that take an {argument}.
const WITH_ARG = new Set(['ATTR', 'ATTRS', 'SYSCTL', 'ENV', 'TEST', 'IMPORT', 'RUN', 'SECLABEL', 'CONST']);

/** Parses udev rules text; returns the rules and one message per syntax error. */
export function parseUdevRules(text: string): { rules: UdevRule[]; errors: string[] } {
  const rules: UdevRule[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    if (trimmed.endsWith('\\')) {
      errors.push(`line ${line}: line continuations are not used in this file`);
      return;
    }
    // Split on commas outside double quotes; an odd number of quotes means an unterminated value.
    const parts: string[] = [];
    let current = '';
    let inQuotes = false;
    for (let i = 0; i < trimmed.length; i++) {
      const ch = trimmed[i];
      if (ch === '\\' && inQuotes && i + 1 < trimmed.length) {
        current += ch + trimmed[++i];
        continue;
      }
      if (ch === '"') inQuotes = !inQuotes;
      if (ch === ',' && !inQuotes) {
        parts.push(current);
        current = '';
      } else {
        current += ch;
      }
    }
    parts.push(current);
    if (inQuotes) {
      errors.push(`line ${line}: unbalanced double quotes`);
      return;
    }
    const pairs: UdevPair[] = [];
    for (const part of parts) {
      const m = /^\s*([A-Z_]+)(\{[^{}"\s]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*$/.exec(part);
      if (!m) {
        errors.push(`line ${line}: not a KEY<op>"value" pair: ${JSON.stringify(part.trim())}`);
        continue;
      }
      const [, name = '', arg, op = '', value = ''] = m;
      const key = name + (arg ?? '');
      if (!MATCH_ONLY.has(name) && !ASSIGN_ONLY.has(name) && !EITHER.has(name)) {
        errors.push(`line ${line}: unknown key ${name}`);
      } else if (WITH_ARG.has(name) !== (arg !== undefined) && !(name === 'IMPORT' || name === 'RUN')) {
        errors.push(`line ${line}: ${name} ${arg === undefined ? 'needs' : 'takes no'} {argument}`);
      } else if (MATCH_OPS.has(op) && ASSIGN_ONLY.has(name)) {
        errors.push(`line ${line}: ${name} can only be assigned, not compared with ${op}`);
      } else if (ASSIGN_OPS.has(op) && MATCH_ONLY.has(name)) {
        errors.push(`line ${line}: ${name} can only be compared, not assigned with ${op}`);
      }
      pairs.push({ key, name, op, value });
    }
    if (pairs.length === parts.length) {
      if (!pairs.some((p) => MATCH_OPS.has(p.op))) errors.push(`line ${line}: a rule without any match`);
      if (!pairs.some((p) => ASSIGN_OPS.has(p.op))) errors.push(`line ${line}: a rule that assigns nothing`);
    }
    rules.push({ line, pairs });
  });
  return { rules, errors };
}

/** The value a rule compares `key` with (==), if any. */
export function matchValue(rule: UdevRule, key: string): string | undefined {
  return rule.pairs.find((p) => p.key === key && p.op === '==')?.value;
}

// ---------------------------------------------------------------------------------------------
// PNG: checks the signature, every chunk's CRC, and that the image data inflates to the right size.

export function checkPng(buf: Buffer): { width: number; height: number; colourType: number } {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (!buf.subarray(0, 8).equals(signature)) throw new Error('not a PNG (bad signature)');
  let offset = 8;
  let width = 0, height = 0, bitDepth = 0, colourType = -1, interlace = 0;
  const idat: Buffer[] = [];
  let sawEnd = false;
  while (offset < buf.length) {
    const length = buf.readUInt32BE(offset);
    const type = buf.toString('ascii', offset + 4, offset + 8);
    const data = buf.subarray(offset + 8, offset + 8 + length);
    const crc = buf.readUInt32BE(offset + 8 + length);
    if (crc32(buf.subarray(offset + 4, offset + 8 + length)) !== crc) throw new Error(`bad CRC in ${type} chunk`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      bitDepth = data[8] ?? 0;
      colourType = data[9] ?? -1;
      interlace = data[12] ?? 0;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      sawEnd = true;
      break;
    }
    offset += 12 + length;
  }
  if (!sawEnd) throw new Error('PNG has no IEND chunk');
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colourType];
  if (channels === undefined || bitDepth !== 8 || interlace !== 0) {
    throw new Error(`unexpected PNG format (colour type ${colourType}, depth ${bitDepth}, interlace ${interlace})`);
  }
  const raw = inflateSync(Buffer.concat(idat));
  if (raw.length !== height * (1 + width * channels)) throw new Error('PNG image data has the wrong size');
  return { width, height, colourType };
}

// ---------------------------------------------------------------------------------------------

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string; // stdout and stderr interleaved
}

/** Runs a command, collecting its output; never rejects on a non-zero exit. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = options.timeoutMs
      ? setTimeout(() => {
          output += `\n[killed after ${options.timeoutMs} ms]`;
          child.kill('SIGKILL');
        }, options.timeoutMs)
      : undefined;
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, output });
    });
  });
}

/** The last `n` lines of a long output, for assertion messages. */
export function tail(text: string, n = 40): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}
