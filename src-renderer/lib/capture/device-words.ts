import type { Source } from '../../../src-main/core/contract/contract.js';

/**
 * A device list entry in words: what the board is (its name from its USB id, else the system's
 * name for the port), then, while it streams, what its stream says: "Arduino Nano 33 BLE · 57600 ·
 * 3 axes · 100 Hz" (the baud rate it is read at, found or set). The second line keeps the port's own name and its path or serial number.
 */
export function deviceWords(source: Source): { name: string; detail: string } {
  const s = source.stream;
  const said = s ? [...(s.baud ? [String(s.baud)] : []), `${s.axes} ${s.axes === 1 ? 'axis' : 'axes'}`, s.rateHz === null ? 'measuring its rate' : `${Number(s.rateHz.toFixed(2))} Hz`] : [];
  return {
    name: [source.board ?? source.name, ...said].join(' · '),
    detail: source.board ? `${source.name} · ${source.detail}` : source.detail,
  };
}
