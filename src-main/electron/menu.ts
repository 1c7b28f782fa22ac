import { Menu, type MenuItemConstructorOptions } from 'electron';

/** Standard roles only: they give every platform its expected shortcuts (copy, reload, zoom, quit). */
export function buildMenu(): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
  return Menu.buildFromTemplate(template);
}
