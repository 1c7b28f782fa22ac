import { ids, type KnownId } from './known-id.js';

// USB–serial bridge chips: the id names the chip, not the board around it (an ESP32 DevKit, a
// Sony Spresense (CP2102N), an Arduino Nano clone (CH340)…). Read from
// the Linux drivers' id tables; names of the chips as usb.ids (Debian's usb.ids/hwdata) gives them.
const CP210X = 'torvalds/linux drivers/usb/serial/cp210x.c';
const CH341 = 'torvalds/linux drivers/usb/serial/ch341.c';
// CH342/CH343/CH9102 are CDC-ACM devices the kernel drives as ttyACM; WCH's own driver names them.
const CH343 = 'WCHSoftGroup/ch343ser_linux udev/99-ch34x.rules';
const FTDI = 'torvalds/linux drivers/usb/serial/ftdi_sio_ids.h';
const USB_IDS = 'Debian usb.ids (/usr/share/misc/usb.ids, hwdata)';

export const BRIDGE_IDS: readonly KnownId[] = [
  // ea60 is the factory id of the CP2101–CP2104 and CP2102N (the kernel: "Silicon Labs factory default").
  ids('10c4', ['ea60'], 'CP2102 USB–serial bridge', 'bridge', CP210X),
  ids('10c4', ['ea61', 'ea63'], 'CP210x USB–serial bridge', 'bridge', CP210X),
  ids('10c4', ['ea70'], 'CP2105 dual USB–serial bridge', 'bridge', CP210X),
  ids('10c4', ['ea71'], 'CP2108 quad USB–serial bridge', 'bridge', CP210X),
  ids('1a86', ['7523'], 'CH340 USB–serial bridge', 'bridge', CH341),
  ids('1a86', ['7522'], 'CH340K USB–serial bridge', 'bridge', CH341),
  ids('1a86', ['5523'], 'CH341 USB–serial bridge', 'bridge', CH341),
  ids('1a86', ['55d4'], 'CH9102 USB–serial bridge', 'bridge', CH343),
  ids('1a86', ['55d3'], 'CH343 USB–serial bridge', 'bridge', CH343),
  ids('1a86', ['55d2'], 'CH342 dual USB–serial bridge', 'bridge', CH343),
  ids('0403', ['6001'], 'FT232R USB–serial bridge', 'bridge', `${FTDI} (FTDI_8U232AM_PID)`),
  ids('0403', ['6010'], 'FT2232 dual USB–serial bridge', 'bridge', `${FTDI} (FTDI_8U2232C_PID)`),
  ids('0403', ['6011'], 'FT4232H quad USB–serial bridge', 'bridge', `${FTDI} (FTDI_4232H_PID)`),
  ids('0403', ['6014'], 'FT232H USB–serial bridge', 'bridge', `${FTDI} (FTDI_232H_PID)`),
  ids('0403', ['6015'], 'FT231X USB–serial bridge', 'bridge', `${FTDI} (FTDI_FTX_PID: FT-X series)`),
  ids('067b', ['2303'], 'PL2303 USB–serial bridge', 'bridge', USB_IDS),
];
