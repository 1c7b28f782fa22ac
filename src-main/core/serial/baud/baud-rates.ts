/**
 * The rates tried, commonest first (an Arduino sketch's 115200 and 9600, then the rest), then the
 * ones without a B-constant: 250000/500000/1000000 (AVR-friendly), and 74880 last, an ESP8266's ROM.
 */
export const BAUD_ORDER: readonly number[] = [115_200, 9_600, 57_600, 230_400, 460_800, 921_600, 38_400, 19_200, 250_000, 500_000, 1_000_000, 74_880];

/** The remembered rate first, then the usual order. */
export function probeOrder(remembered: number | null): number[] {
  return remembered === null ? [...BAUD_ORDER] : [remembered, ...BAUD_ORDER.filter((b) => b !== remembered)];
}
