/**
 * One line of the table of USB ids Capture Desk knows by name. Each names where the id comes from
 * (a file in a public board package, a driver's id table or usb.ids), so that a wrong one can be
 * checked against its source rather than against someone's memory.
 */
export interface KnownId {
  /** Four lower-case hex digits, as udev and serialport give them. */
  vendorId: string;
  /** The product ids this line covers; '*' for any product of the vendor (a fallback). */
  productIds: readonly string[] | '*';
  /** What the id says: a board ("Arduino Nano 33 BLE") or a USB–serial bridge ("CH340 USB–serial bridge"). */
  name: string;
  kind: 'board' | 'bridge';
  /** repository + path (or package + file) the id was read from. */
  source: string;
}

/** Shorthand for a line of the table. */
export function ids(vendorId: string, productIds: readonly string[] | '*', name: string, kind: KnownId['kind'], source: string): KnownId {
  return { vendorId, productIds, name, kind, source };
}
