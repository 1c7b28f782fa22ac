import { extname } from 'node:path';
import type { QualityFinding, QualityReport, SampleKind } from '../../contract/contract.js';
import { checkCounters } from './counters-check.js';
import { bufferSource, fileSource, readAll, type ByteSource } from './byte-source.js';
import { scanWav } from './audio-check.js';
import { finding } from './findings.js';
import { checkLength } from './length-check.js';
import { checkBoardClock, checkRate } from './rate-check.js';
import { scanSensorFile } from './sensor-check.js';

export interface QualitySubject {
  name: string;
  kind: SampleKind;
  lengthMs?: number | null | undefined;
  /** Capture facts: rows, rejected_lines, dropped_lines, measured_hz (serial recordings). */
  extra?: Record<string, unknown> | undefined;
}

export interface QualityOptions {
  minLengthMs: number;
  now?: () => Date;
}

export type QualityFile = { path: string } | { bytes: Uint8Array };

/**
 * Every check that applies to this kind of file, in one pass over its content. A file that
 * cannot be read or parsed yields one "unreadable" error rather than an exception: it is the
 * most useful thing to know about it.
 */
export async function checkSample(file: QualityFile, s: QualitySubject, o: QualityOptions): Promise<QualityReport> {
  return (await inspectSampleFile(file, s, o)).report;
}

/** The report, and the length the file itself shows (rows × interval, WAV frames), null if it does not tell. */
export async function inspectSampleFile(file: QualityFile, s: QualitySubject, o: QualityOptions): Promise<{ report: QualityReport; lengthMs: number | null }> {
  const findings: QualityFinding[] = [];
  let lengthMs: number | null = null;
  const extra = s.extra ?? {};
  const ext = extname(s.name).toLowerCase();
  let src: ByteSource | null = null;
  try {
    src = 'bytes' in file ? bufferSource(file.bytes) : await fileSource(file.path);
    if (s.kind === 'sensor' && (ext === '.cbor' || ext === '.json')) {
      const scan = scanSensorFile(await readAll(src));
      lengthMs = scan.lengthMs;
      findings.push(...checkLength(scan.lengthMs, o.minLengthMs, scan.intervalMs), ...checkCounters({ rows: scan.rows, ...extra }));
      findings.push(...checkRate(1000 / scan.intervalMs, numberOrNull(extra['measured_hz'])));
      if (extra['protocol'] === 'nordic') findings.push(...checkBoardClock(1000 / scan.intervalMs, numberOrNull(extra['board_ts_hz'])));
      findings.push(...scan.findings);
    } else if (s.kind === 'audio' && ext === '.wav') {
      const scan = await scanWav(src);
      lengthMs = scan.lengthMs;
      findings.push(...checkLength(scan.lengthMs, o.minLengthMs), ...scan.findings);
    } else {
      findings.push(...checkLength(s.lengthMs ?? null, o.minLengthMs));
    }
  } catch (err) {
    findings.push(finding('unreadable', 'error',
      `Unreadable: ${(err as Error).message.replace(/[.\s]+$/, '')}. The platform would refuse it too; record it again, or fix or remove the file.`));
  } finally {
    await src?.close().catch(() => {});
  }
  // Errors first: the badge shows the first finding.
  findings.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));
  return { report: { checkedAt: (o.now?.() ?? new Date()).toISOString(), findings }, lengthMs };
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
