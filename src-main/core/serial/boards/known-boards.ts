import { ARDUINO_IDS } from './arduino-ids.js';
import { BRIDGE_IDS } from './bridge-ids.js';
import type { KnownId } from './known-id.js';
import { VENDOR_BOARD_IDS } from './vendor-boards.js';

export type { KnownId };

/** Every id we know by name: exact product ids first, then a vendor's catch-all. */
export const KNOWN_IDS: readonly KnownId[] = [...ARDUINO_IDS, ...VENDOR_BOARD_IDS, ...BRIDGE_IDS];

const exact = new Map<string, KnownId>();
const anyProduct = new Map<string, KnownId>();
for (const k of KNOWN_IDS) {
  if (k.productIds === '*') anyProduct.set(k.vendorId, k);
  else for (const pid of k.productIds) if (!exact.has(`${k.vendorId}:${pid}`)) exact.set(`${k.vendorId}:${pid}`, k);
}

/**
 * What the USB id says the device is: the board's name when the id names it, else the bridge
 * chip's ("CP2102 USB–serial bridge"), else the vendor's boards in general; undefined when
 * the id is not in the table (or there is none: a pseudo-terminal, a built-in UART).
 */
export function knownBoard(vendorId: string | undefined, productId: string | undefined): KnownId | undefined {
  if (!vendorId) return undefined;
  const vid = vendorId.toLowerCase();
  return (productId ? exact.get(`${vid}:${productId.toLowerCase()}`) : undefined) ?? anyProduct.get(vid);
}
