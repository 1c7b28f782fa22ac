import { ids, type KnownId } from './known-id.js';

// Arduino's own boards, from the vid/pid lines of each core's boards.txt (the ids the Arduino IDE
// itself matches a port to a board with). A board has several: the sketch's, the bootloader's
// (0x80xx) and the variants' (0x02xx, 0x03xx…); all name the board. 2a03 is the arduino.org
// (Arduino Srl) vendor id of older boards.
const AVR = 'arduino/ArduinoCore-avr boards.txt';
const MBED = 'arduino/ArduinoCore-mbed boards.txt';
const RENESAS = 'arduino/ArduinoCore-renesas boards.txt';
const SAMD = 'arduino/ArduinoCore-samd boards.txt';
const MEGAAVR = 'arduino/ArduinoCore-megaavr boards.txt';
const SAM = 'arduino/ArduinoCore-sam boards.txt';
const USB_IDS = 'Debian usb.ids (/usr/share/misc/usb.ids, hwdata)';

export const ARDUINO_IDS: readonly KnownId[] = [
  ids('2341', ['0043', '0001', '0243', '006a'], 'Arduino Uno', 'board', `${AVR} (uno)`),
  ids('2a03', ['0043'], 'Arduino Uno', 'board', `${AVR} (uno)`),
  ids('2341', ['0010', '0042', '0210', '0242'], 'Arduino Mega 2560', 'board', `${AVR} (mega)`),
  ids('2a03', ['0010', '0042'], 'Arduino Mega 2560', 'board', `${AVR} (mega)`),
  ids('2341', ['0036', '8036'], 'Arduino Leonardo', 'board', `${AVR} (leonardo)`),
  ids('2a03', ['0036', '8036'], 'Arduino Leonardo', 'board', `${AVR} (leonardo)`),
  ids('2341', ['0037', '8037', '0237', '8237'], 'Arduino Micro', 'board', `${AVR} (micro)`),
  // The Nano 33 BLE Sense (Rev1 and Rev2) reports the Nano 33 BLE's ids: one board entry covers both.
  ids('2341', ['005a', '805a', '015a', '025a'], 'Arduino Nano 33 BLE', 'board', `${MBED} (nano33ble)`),
  ids('2341', ['005e', '805e', '015e', '025e'], 'Arduino Nano RP2040 Connect', 'board', `${MBED} (nanorp2040connect)`),
  ids('2341', ['025b', '035b', '045b', '055b', '005b'], 'Arduino Portenta H7', 'board', `${MBED} (envie_m7, envie_m4)`),
  ids('2341', ['0061'], 'Arduino Portenta X8', 'board', `${MBED} (portenta_x8)`),
  ids('2341', ['025f', '035f', '045f', '055f'], 'Arduino Nicla Vision', 'board', `${MBED} (nicla_vision)`),
  ids('2341', ['0060'], 'Arduino Nicla Sense ME', 'board', `${MBED} (nicla_sense)`),
  ids('2341', ['0065'], 'Arduino Nicla Voice', 'board', `${MBED} (nicla_voice)`),
  ids('2341', ['0266', '0366', '0466'], 'Arduino Giga R1', 'board', `${MBED} (giga)`),
  ids('2341', ['005d', '805d'], 'Arduino Edge Control', 'board', `${MBED} (edge_control)`),
  ids('2341', ['0068', '0368'], 'Arduino Portenta C33', 'board', `${RENESAS} (portenta_c33)`),
  ids('2341', ['0069', '0369'], 'Arduino Uno R4 Minima', 'board', `${RENESAS} (minima)`),
  ids('2341', ['006d', '1002'], 'Arduino Uno R4 WiFi', 'board', `${RENESAS} (unor4wifi)`),
  ids('2341', ['004d', '024d', '804d', '824d'], 'Arduino Zero', 'board', `${SAMD} (arduino_zero_native)`),
  // The Zero's programming port is its on-board Atmel EDBG debugger.
  ids('03eb', ['2157'], 'Arduino Zero (programming port)', 'board', `${SAMD} (arduino_zero_edbg)`),
  ids('2341', ['004e', '024e', '804e', '824e'], 'Arduino MKR 1000 WiFi', 'board', `${SAMD} (mkr1000)`),
  ids('2341', ['004f', '804f'], 'Arduino MKR Zero', 'board', `${SAMD} (mkrzero)`),
  ids('2341', ['0054', '8054'], 'Arduino MKR WiFi 1010', 'board', `${SAMD} (mkrwifi1010)`),
  ids('2341', ['0050', '8050'], 'Arduino MKR FOX 1200', 'board', `${SAMD} (mkrfox1200)`),
  ids('2341', ['0053', '8053'], 'Arduino MKR WAN 1300', 'board', `${SAMD} (mkrwan1300)`),
  ids('2341', ['0059', '8059'], 'Arduino MKR WAN 1310', 'board', `${SAMD} (mkrwan1310)`),
  ids('2341', ['0052', '8052'], 'Arduino MKR GSM 1400', 'board', `${SAMD} (mkrgsm1400)`),
  ids('2341', ['0055', '8055'], 'Arduino MKR NB 1500', 'board', `${SAMD} (mkrnb1500)`),
  ids('2341', ['0056', '8056'], 'Arduino MKR Vidor 4000', 'board', `${SAMD} (mkrvidor4000)`),
  ids('2341', ['0057', '8057'], 'Arduino Nano 33 IoT', 'board', `${SAMD} (nano_33_iot)`),
  ids('2341', ['0058'], 'Arduino Nano Every', 'board', `${MEGAAVR} (nona4809)`),
  // The Uno WiFi Rev2's serial port is its on-board Atmel mEDBG debugger.
  ids('03eb', ['2145'], 'Arduino Uno WiFi Rev2', 'board', `${MEGAAVR} (uno2018)`),
  ids('2341', ['003d'], 'Arduino Due (programming port)', 'board', `${SAM} (arduino_due_x_dbg)`),
  ids('2a03', ['003d'], 'Arduino Due (programming port)', 'board', `${SAM} (arduino_due_x_dbg)`),
  ids('2341', ['003e'], 'Arduino Due (native USB port)', 'board', `${SAM} (arduino_due_x)`),
  ids('2a03', ['003e'], 'Arduino Due (native USB port)', 'board', `${SAM} (arduino_due_x)`),
  // Arduino's vendor ids name no other maker's boards: a board newer than this table is still "an Arduino".
  ids('2341', '*', 'Arduino board', 'board', USB_IDS),
  ids('2a03', '*', 'Arduino board', 'board', USB_IDS),
];
