import type { DiagnosticsReport } from '../contract/diagnostics-schema.js';

/** The report as the text a user pastes into a bug report: one fact a line, readable without tools. */
export function diagnosticsText(r: DiagnosticsReport): string {
  const lines: string[] = [];
  const add = (label: string, value: string) => lines.push(`${label.padEnd(14)}${value}`);
  lines.push(`${r.app.name} diagnostics (${r.generatedAt})`, '');
  add('Version', r.app.version);
  add('Shell', r.app.shell);
  add('Node', r.versions.node + (r.versions.napi ? ` (N-API ${r.versions.napi})` : ''));
  if (r.versions.electron) add('Electron', r.versions.electron);
  if (r.versions.chrome) add('Chromium', r.versions.chrome);
  add('V8', r.versions.v8);
  add('OS', `${r.os.platform} ${r.os.release} ${r.os.arch}`);
  add('OS version', r.os.version);
  add('Data folder', r.paths.dataDir);
  add('Logs folder', r.paths.logsDir);

  lines.push('', `Serial ports (${r.serial.ports.length})`);
  for (const p of r.serial.ports) {
    const ids = p.vendorId || p.productId ? ` [${p.vendorId ?? '?'}:${p.productId ?? '?'}]` : '';
    // The registry names a port it does not list "<path> (added by path)" already.
    const added = p.addedByPath && !p.name.includes('(added by path)') ? '  (added by path)' : '';
    lines.push(`  ${p.path}  ${p.name}${ids}${added}`);
  }
  if (r.serial.ports.length === 0) lines.push('  none seen');

  lines.push('', r.audio.available ? `Microphones (${r.audio.devices.length})` : 'Microphones: not available');
  for (const d of r.audio.devices) lines.push(`  ${d.name}${d.default ? '  (system default)' : ''}`);
  if (r.audio.available && r.audio.devices.length === 0) lines.push('  none found');
  if (r.audio.host) lines.push(`  through ${r.audio.host}`);
  if (r.audio.problem) lines.push(`  ${r.audio.problem}`);

  lines.push('');
  add('Keychain', r.keychain.available ? `available (API key ${r.keychain.apiKey}, HMAC key ${r.keychain.hmacKey})` : `NOT available: ${r.keychain.problem ?? 'unknown reason'}`);
  const q = r.queue;
  add('Upload queue', `${q.paused ? `paused (${q.pausedReason ?? 'no reason given'})` : 'running'}, ${q.online ? 'online' : 'offline'}, ${q.inFlight} request(s) in flight`);
  const s = r.samples;
  add('Samples', `${s.total} in all: ${Object.entries(s.byState).map(([k, n]) => `${n} ${k}`).join(', ')}; ${s.flagged} flagged`);
  add('Ingestion', r.settings.ingestionUrl);
  add('Management', r.settings.managementUrl);
  add('Project', r.settings.projectId === null ? 'none chosen' : String(r.settings.projectId));
  add('Uploads', `${r.settings.uploadConcurrency} in parallel, quality hold: ${r.settings.qualityHold}`);
  return lines.join('\n') + '\n';
}
