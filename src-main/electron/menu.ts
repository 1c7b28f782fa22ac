import type { MenuItemConstructorOptions } from 'electron';

/** What the Help menu does; main.ts wires these to shell, clipboard and the window. */
export interface HelpActions {
  openDataFolder(): void;
  openLogsFolder(): void;
  copyDiagnostics(): void;
  showShortcuts(): void;
  showManual(): void;
}

/** The part of Electron's Menu used here, so a test can build the menu without Electron. */
export interface MenuBuilder<M> {
  buildFromTemplate(template: MenuItemConstructorOptions[]): M;
}

/**
 * Standard roles for everything but Help: they give every platform its expected menus and
 * shortcuts (copy, reload, zoom, quit; the app menu and "About" where each platform puts them).
 */
export function menuTemplate(actions: HelpActions, platform: NodeJS.Platform = process.platform): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  return [
    ...(mac ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    {
      // role "help" makes it the Help menu macOS adds its search field to.
      role: 'help',
      submenu: [
        // F1 as on every desktop; the renderer answers F1 too, so the browser shell has it.
        { label: 'Manual', accelerator: 'F1', click: () => actions.showManual() },
        { label: 'Keyboard Shortcuts', click: () => actions.showShortcuts() },
        { type: 'separator' },
        { label: 'Open Data Folder', click: () => actions.openDataFolder() },
        { label: 'Open Logs Folder', click: () => actions.openLogsFolder() },
        { label: 'Copy Diagnostics', click: () => actions.copyDiagnostics() },
        // macOS has About in the app menu; elsewhere it belongs at the end of Help.
        ...(mac ? [] : [{ type: 'separator' as const }, { role: 'about' as const }]),
      ],
    },
  ];
}

export function buildMenu<M>(menu: MenuBuilder<M>, actions: HelpActions, platform: NodeJS.Platform = process.platform): M {
  return menu.buildFromTemplate(menuTemplate(actions, platform));
}
