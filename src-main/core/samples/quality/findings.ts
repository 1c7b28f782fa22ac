import type { QualityCode, QualityFinding, QualitySeverity } from '../../contract/contract.js';

export function finding(code: QualityCode, severity: QualitySeverity, message: string): QualityFinding {
  return { code, severity, message };
}

/** The worst severity among the findings, null when there are none. */
export function worstSeverity(findings: QualityFinding[]): QualitySeverity | null {
  if (findings.some((f) => f.severity === 'error')) return 'error';
  return findings.length ? 'warning' : null;
}

/** "1.2 s", "850 ms", "3 min 20 s": lengths as people say them. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const min = Math.floor(ms / 60_000);
  return `${min} min ${Math.round((ms - min * 60_000) / 1000)} s`;
}

export function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(fraction < 0.01 ? 2 : 1)}%`;
}
