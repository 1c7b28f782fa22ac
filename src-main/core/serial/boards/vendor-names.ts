import { readFile } from 'node:fs/promises';

// Vendor names for the vendors in our table, as Debian's usb.ids spells them (hwdata 0.368 /
// usb.ids 2025.07.26), for a machine without that file. Three are not in usb.ids; their names are
// the vendors' own (the board packages' boards.txt and the Espressif/Raspberry Pi SDKs).
const FALLBACK: Readonly<Record<string, string>> = {
  '2341': 'Arduino SA',
  '2a03': 'dog hunter AG (Arduino Srl)',
  '239a': 'Adafruit',
  '303a': 'Espressif Systems', // not in usb.ids
  '10c4': 'Silicon Labs',
  '1a86': 'QinHeng Electronics',
  '0403': 'Future Technology Devices International, Ltd',
  '1366': 'SEGGER',
  '0483': 'STMicroelectronics',
  '2e8a': 'Raspberry Pi', // not in usb.ids
  '2886': 'Seeed Technology Co., Ltd.',
  '1b4f': 'SparkFun Electronics', // not in usb.ids
  '16c0': 'Van Ooijen Technische Informatica',
  '054c': 'Sony Corp.',
  '1915': 'Nordic Semiconductor ASA',
  '067b': 'Prolific Technology, Inc.',
  '03eb': 'Atmel Corp.',
};

/**
 * Where distributions put usb.ids: Debian's hwdata links /usr/share/hwdata/usb.ids to the usb.ids
 * package's /usr/share/misc/usb.ids (itself a link to /var/lib/usbutils/usb.ids); Fedora and Arch
 * ship it in /usr/share/hwdata.
 */
export const USB_IDS_PATHS = ['/usr/share/hwdata/usb.ids', '/usr/share/misc/usb.ids', '/var/lib/usbutils/usb.ids', '/usr/share/usb.ids'];

/** Vendor names from the system's usb.ids when it has one, else from the table above. */
export class VendorNames {
  #db: Promise<Map<string, string> | null> | null = null;

  constructor(private readonly paths: readonly string[] = USB_IDS_PATHS) {}

  async name(vendorId: string | undefined): Promise<string | null> {
    if (!vendorId) return null;
    const vid = vendorId.toLowerCase();
    const db = await (this.#db ??= this.#load());
    return db?.get(vid) ?? FALLBACK[vid] ?? null;
  }

  async #load(): Promise<Map<string, string> | null> {
    for (const path of this.paths) {
      try {
        return parseUsbIdVendors(await readFile(path, 'latin1'));
      } catch {
        // Not there (or unreadable): the next place, then the table. Nothing is lost but a name.
      }
    }
    return null;
  }
}

/** Vendor lines of usb.ids: "2341  Arduino SA" at the start of a line (products are indented). */
export function parseUsbIdVendors(text: string): Map<string, string> {
  const vendors = new Map<string, string>();
  for (const m of text.matchAll(/^([0-9a-f]{4}) {2}(.+)$/gm)) vendors.set(m[1]!, m[2]!.trim());
  return vendors;
}
