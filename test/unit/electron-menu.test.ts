// The desktop app's menu and Help actions with fakes of Menu, shell and clipboard (no electron import).
import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import type { CallResult } from '../../src-main/core/contract/contract.js';
import { createLogger } from '../../src-main/core/log.js';
import { helpActions } from '../../src-main/electron/help-actions.js';
import { buildMenu, type HelpActions } from '../../src-main/electron/menu.js';

function recordingActions() {
  const calls: string[] = [];
  const actions: HelpActions = {
    openDataFolder: () => calls.push('data'),
    openLogsFolder: () => calls.push('logs'),
    copyDiagnostics: () => calls.push('copy'),
    showShortcuts: () => calls.push('shortcuts'),
    showManual: () => calls.push('manual'),
  };
  return { calls, actions };
}
const fakeMenu = { buildFromTemplate: (t: MenuItemConstructorOptions[]) => ({ template: t }) };
const helpOf = (t: MenuItemConstructorOptions[]) => t.find((m) => m.role === 'help')!.submenu as MenuItemConstructorOptions[];
const click = (item: MenuItemConstructorOptions | undefined) => (item!.click as () => void)();

describe('application menu', () => {
  it('keeps the standard menus and adds Help items that run the injected actions', () => {
    const { calls, actions } = recordingActions();
    const { template } = buildMenu(fakeMenu, actions, 'linux');
    expect(template.map((m) => m.role)).toEqual(['fileMenu', 'editMenu', 'viewMenu', 'windowMenu', 'help']);
    const help = helpOf(template);
    expect(help.filter((i) => i.label).map((i) => i.label)).toEqual(['Manual', 'Keyboard Shortcuts', 'Open Data Folder', 'Open Logs Folder', 'Copy Diagnostics']);
    expect(help.at(-1)).toEqual({ role: 'about' });
    // F1 opens the manual, as on every desktop; the renderer answers F1 as well (the browser shell).
    expect(help.find((i) => i.label === 'Manual')?.accelerator).toBe('F1');
    for (const label of ['Open Data Folder', 'Open Logs Folder', 'Copy Diagnostics', 'Keyboard Shortcuts', 'Manual']) click(help.find((i) => i.label === label));
    expect(calls).toEqual(['data', 'logs', 'copy', 'shortcuts', 'manual']);
  });

  it('puts the app menu first on macOS and leaves About to it', () => {
    const { template } = buildMenu(fakeMenu, recordingActions().actions, 'darwin');
    expect(template[0]).toEqual({ role: 'appMenu' });
    expect(helpOf(template).some((i) => i.role === 'about')).toBe(false);
  });
});

describe('Help actions', () => {
  function setup(answer: CallResult, openProblem = '') {
    const opened: string[] = [];
    const copied: string[] = [];
    const shown: unknown[] = [];
    const logged: string[] = [];
    const actions = helpActions({
      dataDir: '/data',
      logsDir: '/data/logs',
      dispatch: async (method) => (method === 'app.diagnostics' ? answer : { ok: false, error: { code: 'UnknownMethod', message: 'no' } }),
      openPath: async (p) => {
        opened.push(p);
        return openProblem;
      },
      writeText: (t) => copied.push(t),
      showHelp: (p) => shown.push(p),
      log: createLogger((l) => logged.push(l)),
    });
    return { actions, opened, copied, shown, logged };
  }
  const settle = () => new Promise((r) => setTimeout(r, 0));

  it('opens the data and logs folders, copies the diagnostics text and shows what was copied', async () => {
    const { actions, opened, copied, shown } = setup({ ok: true, value: { report: {}, text: 'Capture Desk diagnostics\nShell electron\n' } });
    actions.openDataFolder();
    actions.openLogsFolder();
    actions.copyDiagnostics();
    actions.showShortcuts();
    actions.showManual();
    await settle();
    expect(opened).toEqual(['/data', '/data/logs']);
    expect(copied).toEqual(['Capture Desk diagnostics\nShell electron\n']);
    expect(shown).toEqual([{ panel: 'shortcuts' }, { panel: 'manual' }, { panel: 'diagnostics' }]);
  });

  it('logs a folder the system could not open and diagnostics that failed, copying nothing', async () => {
    const { actions, copied, logged } = setup({ ok: false, error: { code: 'Internal', message: 'boom' } }, 'Failed to open path');
    actions.openLogsFolder();
    actions.copyDiagnostics();
    await settle();
    expect(copied).toEqual([]);
    expect(logged.join('')).toContain('could not open the logs folder');
    expect(logged.join('')).toContain('Failed to open path');
    expect(logged.join('')).toContain('diagnostics failed');
  });
});
