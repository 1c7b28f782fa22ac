import { ids, type KnownId } from './known-id.js';

// Boards of other makers, and the debug probes whose serial port is a board's (a Nordic DK's
// J-Link, an STM32 Nucleo's ST-LINK). Where a vendor id is shared by many boards with one product
// id (Raspberry Pi's SDK, SparkFun's RP2040 boards), the name says so instead of guessing one.
const ADAFRUIT_SAMD = 'adafruit/ArduinoCore-samd boards.txt';
const ADAFRUIT_NRF = 'adafruit/Adafruit_nRF52_Arduino boards.txt';
const PICO = 'earlephilhower/arduino-pico boards.txt';
const SEEED = 'Seeed-Studio/ArduinoCore-samd boards.txt';
const USB_IDS = 'Debian usb.ids (/usr/share/misc/usb.ids, hwdata)';

export const VENDOR_BOARD_IDS: readonly KnownId[] = [
  ids('239a', ['800b', '000b', '0015'], 'Adafruit Feather M0', 'board', `${ADAFRUIT_SAMD} (adafruit_feather_m0)`),
  ids('239a', ['801b', '001b'], 'Adafruit Feather M0 Express', 'board', `${ADAFRUIT_SAMD} (adafruit_feather_m0_express)`),
  ids('239a', ['8022', '0022', '8026'], 'Adafruit Feather M4 Express', 'board', `${ADAFRUIT_SAMD} (adafruit_feather_m4)`),
  ids('239a', ['802b', '002b'], 'Adafruit ItsyBitsy M4', 'board', `${ADAFRUIT_SAMD} (adafruit_itsybitsy_m4)`),
  ids('239a', ['8020', '0020', '8021', '0021'], 'Adafruit Metro M4', 'board', `${ADAFRUIT_SAMD} (adafruit_metro_m4)`),
  ids('239a', ['8018', '0018', '0019'], 'Adafruit Circuit Playground Express', 'board', `${ADAFRUIT_SAMD} (adafruit_circuitplayground_m0)`),
  ids('239a', ['8029', '0029', '802a', '002a'], 'Adafruit Feather nRF52840 Express', 'board', `${ADAFRUIT_NRF} (feather52840)`),
  ids('239a', ['8087', '0087', '8088', '0088'], 'Adafruit Feather nRF52840 Sense', 'board', `${ADAFRUIT_NRF} (feather52840sense)`),
  ids('239a', ['8071', '0071', '8072'], 'Adafruit CLUE', 'board', `${ADAFRUIT_NRF} (cluenrf52840)`),
  ids('239a', ['8045', '0045', '8046'], 'Adafruit Circuit Playground Bluefruit', 'board', `${ADAFRUIT_NRF} (cplaynrf52840)`),
  ids('239a', ['8051', '0051', '8052', '0052'], 'Adafruit ItsyBitsy nRF52840 Express', 'board', `${ADAFRUIT_NRF} (itsybitsy52840)`),
  ids('239a', '*', 'Adafruit board', 'board', USB_IDS),
  // Espressif's own USB: the USB-Serial/JTAG unit built into the ESP32-S3, -C3, -C6 and -H2, and
  // the TinyUSB CDC port the Arduino core gives the ESP32-S2/S3 (its default pid).
  ids('303a', ['1001'], 'Espressif ESP32-S3/C3 (USB-Serial/JTAG)', 'board', 'espressif/esptool esptool/loader.py (USB_JTAG_SERIAL_PID)'),
  ids('303a', ['0002'], 'Espressif ESP32-S2/S3 (native USB)', 'board', 'espressif/arduino-esp32 cores/esp32/USB.cpp (USB_PID)'),
  ids('303a', '*', 'Espressif board', 'board', 'espressif/arduino-esp32 cores/esp32/esp32-hal-tinyusb.h (USB_ESPRESSIF_VID)'),
  // 000a is the Pico SDK's USB serial (pico_stdio_usb) and arduino-pico's Pico; boards built on
  // the RP2040 with the SDK (Seeed XIAO RP2040 among them) report it too.
  ids('2e8a', ['000a', '010a', '400a', '410a', '800a', '810a', 'c00a', 'c10a'], 'Raspberry Pi Pico (RP2040)', 'board', `${PICO} (rpipico, seeed_xiao_rp2040); raspberrypi/pico-sdk src/rp2_common/pico_stdio_usb`),
  ids('2e8a', ['000f', '010f', '400f', '410f', '800f', '810f', 'c00f', 'c10f'], 'Raspberry Pi Pico 2 (RP2350)', 'board', `${PICO} (rpipico2)`),
  ids('2e8a', ['f00a', 'f10a'], 'Raspberry Pi Pico W or RP2040 board', 'board', `${PICO} (rpipicow, generic)`),
  ids('2e8a', ['00c0'], 'Raspberry Pi Pico (Arduino mbed core)', 'board', 'arduino/ArduinoCore-mbed boards.txt (pico)'),
  ids('2e8a', '*', 'Raspberry Pi RP2040/RP2350 board', 'board', PICO),
  ids('2886', ['802f', '002f'], 'Seeed XIAO SAMD21', 'board', `${SEEED} (seeed_XIAO_m0)`),
  ids('2886', ['802d', '002d'], 'Seeed Wio Terminal', 'board', `${SEEED} (seeed_wio_terminal)`),
  ids('2886', ['0058', '0158', '4058', '4158', '8058', '8158', 'c058', 'c158'], 'Seeed XIAO RP2350', 'board', `${PICO} (seeed_xiao_rp2350)`),
  ids('2886', '*', 'Seeed Studio board', 'board', USB_IDS),
  ids('1b4f', ['0026', '0126', '4026', '4126', '8026', '8126', 'c026', 'c126'], 'SparkFun RP2040 board (Pro Micro, Thing Plus or MicroMod)', 'board', `${PICO} (sparkfun_promicrorp2040, sparkfun_thingplusrp2040)`),
  ids('1b4f', ['9207', '9208'], 'SparkFun LilyPad Arduino USB', 'board', 'arduino/ArduinoCore-avr boards.txt (LilyPadUSB)'),
  ids('1b4f', '*', 'SparkFun board', 'board', 'resources/linux/99-capture-desk.rules (SparkFun)'),
  ids('16c0', ['0483'], 'Teensy (USB serial)', 'board', 'PaulStoffregen/cores teensy4/usb_desc.h (USB_SERIAL)'),
  ids('16c0', ['048b', '048c'], 'Teensy (USB dual/triple serial)', 'board', 'PaulStoffregen/cores teensy4/usb_desc.h (USB_DUAL_SERIAL, USB_TRIPLE_SERIAL)'),
  // Nordic's DKs (nRF52, nRF5340, nRF9160) put their serial ports behind an on-board SEGGER J-Link
  // (zephyrproject-rtos/zephyr doc/develop/flash_debug/nordic_segger.rst); 1015 is J-Link with CDC and MSD.
  ids('1366', ['1015', '0105'], 'Nordic DK (SEGGER J-Link OB)', 'board', `${USB_IDS}; zephyrproject-rtos/zephyr doc/develop/flash_debug/nordic_segger.rst`),
  ids('1366', '*', 'SEGGER J-Link (e.g. a Nordic DK)', 'board', USB_IDS),
  ids('0483', ['374b', '3752'], 'ST-LINK/V2-1 (STM32 Nucleo/Discovery)', 'board', USB_IDS),
  ids('0483', ['374e', '374f', '3753'], 'STLINK-V3 (STM32 board)', 'board', USB_IDS),
  ids('0483', ['5740'], 'STM32 virtual COM port', 'board', USB_IDS),
  ids('1915', '*', 'Nordic Semiconductor nRF board', 'board', USB_IDS),
];
