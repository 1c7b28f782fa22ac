import type { Dispatch } from '../core/dispatch.js';
import type { Diagnostics } from '../core/contract/diagnostics-schema.js';
import type { EventPayload } from '../core/contract/contract.js';
import type { Logger } from '../core/log.js';
import type { HelpActions } from './menu.js';

export interface HelpActionDeps {
  dataDir: string;
  logsDir: string;
  dispatch: Dispatch;
  /** Electron's shell.openPath: resolves to an error message, '' on success. */
  openPath(path: string): Promise<string>;
  /** Electron's clipboard.writeText. */
  writeText(text: string): void;
  /** Tells the focused window's renderer to show a help panel (it listens for this contract event). */
  showHelp(payload: EventPayload<'app.showHelp'>): void;
  log: Logger;
}

/** The Help menu's actions, kept out of main.ts so they can be tested with fakes of Electron's parts. */
export function helpActions(d: HelpActionDeps): HelpActions {
  const open = (what: string, path: string) =>
    void d.openPath(path).then(
      (problem) => {
        if (problem) d.log.warn(`could not open the ${what}`, { path, problem });
      },
      (err: unknown) => d.log.warn(`could not open the ${what}`, { path, problem: String(err) }),
    );
  return {
    openDataFolder: () => open('data folder', d.dataDir),
    openLogsFolder: () => open('logs folder', d.logsDir),
    showShortcuts: () => d.showHelp({ panel: 'shortcuts' }),
    // The manual opens in the app's own window, offline, not in a browser (see handlers/manual.ts).
    showManual: () => d.showHelp({ panel: 'manual' }),
    copyDiagnostics: () =>
      void d.dispatch('app.diagnostics', {}).then((r) => {
        if (!r.ok) {
          d.log.error('diagnostics failed', { error: r.error.message });
          return;
        }
        d.writeText((r.value as Diagnostics).text);
        // The panel shows what was copied, so the user sees something happened and what they send.
        d.showHelp({ panel: 'diagnostics' });
      }),
  };
}
