// Electron's Menu: templates checked as Electron checks them, the application menu recorded.
import { record } from './common.js';
import type { MenuItemSnapshot } from './protocol.js';
import type { BrowserWindow } from './windows.js';

export interface MenuItemOptions {
  label?: string;
  role?: string;
  type?: string;
  accelerator?: string;
  enabled?: boolean;
  click?: (item: unknown, win: BrowserWindow | undefined, event: unknown) => void;
  submenu?: MenuItemOptions[] | Menu;
}
/** The labels Electron gives role items that have none of their own (menu-item-roles.ts). */
const ROLE_LABELS: Record<string, string> = { fileMenu: 'File', editMenu: 'Edit', viewMenu: 'View', windowMenu: 'Window', help: 'Help', about: 'About' };
const roleLabel = (role: string | undefined) => (role === undefined ? undefined : ROLE_LABELS[role]);

export class Menu {
  constructor(readonly items: MenuItemOptions[] = []) {}
  static buildFromTemplate(template: MenuItemOptions[]): Menu {
    const check = (items: MenuItemOptions[]) => {
      for (const it of items) {
        if (it.label === undefined && it.role === undefined && it.type === undefined) {
          throw new TypeError('Invalid template for MenuItem: must have at least one of label, role or type');
        }
        if (Array.isArray(it.submenu)) check(it.submenu);
      }
    };
    check(template);
    return new Menu(template);
  }
  static setApplicationMenu(menu: Menu | null): void {
    record.applicationMenu = menu;
  }
  static getApplicationMenu(): Menu | null {
    return record.applicationMenu;
  }
  snapshot(): MenuItemSnapshot[] {
    return this.items.map((it) => {
      const sub = it.submenu instanceof Menu ? it.submenu.items : it.submenu;
      const s: MenuItemSnapshot = {};
      if (it.label !== undefined) s.label = it.label;
      if (it.role !== undefined) s.role = it.role;
      if (it.type !== undefined) s.type = it.type;
      if (it.accelerator !== undefined) s.accelerator = it.accelerator;
      if (it.enabled !== undefined) s.enabled = it.enabled;
      if (sub) s.submenu = new Menu(sub).snapshot();
      return s;
    });
  }
  /** The item reached by following labels (for the driver's menu.click). */
  find(path: string[]): MenuItemOptions | undefined {
    let items = this.items;
    let found: MenuItemOptions | undefined;
    for (const label of path) {
      found = items.find((i) => (i.label ?? roleLabel(i.role)) === label);
      if (!found) return undefined;
      items = found.submenu instanceof Menu ? found.submenu.items : (found.submenu ?? []);
    }
    return found;
  }
}
