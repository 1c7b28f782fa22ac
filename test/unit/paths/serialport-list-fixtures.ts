import type { RawPortInfo } from '../../../src-main/core/serial/port-lister.js';

/**
 * SerialPort.list() as it answers on real machines, in serialport 13's shape. The Windows
 * entries are console.log output people published (a CH340 clone, an FTDI adapter whose
 * serial number serialport parses out of the FTDIBUS pnpId); the CDC and built-in ports follow
 * the same binding's fields. Windows reports a device without a serial number (CH340) with an
 * instance id that belongs to the USB socket ("5&79927EA&0&9").
 */
export const WINDOWS_LIST: RawPortInfo[] = [
  {
    path: 'COM14', manufacturer: 'FTDI', serialNumber: 'AI069HNC', pnpId: 'FTDIBUS\\VID_0403+PID_6001+AI069HNCA\\0000',
    friendlyName: 'USB Serial Port (COM14)', vendorId: '0403', productId: '6001',
  },
  {
    path: 'COM7', manufacturer: 'wch.cn', serialNumber: '5&79927EA&0&9', pnpId: 'USB\\VID_1A86&PID_7523\\5&79927EA&0&9',
    friendlyName: 'USB-SERIAL CH340 (COM7)', vendorId: '1A86', productId: '7523',
  },
  {
    path: 'COM10', manufacturer: 'Arduino LLC (www.arduino.cc)', serialNumber: '75833353934351B05281', pnpId: 'USB\\VID_2341&PID_0043\\75833353934351B05281',
    friendlyName: 'Arduino Uno (COM10)', vendorId: '2341', productId: '0043',
  },
  { path: 'COM1', manufacturer: '(Standard port types)', pnpId: 'ACPI\\PNP0501\\0', friendlyName: 'Communications Port (COM1)' },
];

/** macOS: serialport lists the dial-in (tty.*) nodes; the Bluetooth service port is on every Mac. */
export const MAC_LIST: RawPortInfo[] = [
  { path: '/dev/tty.Bluetooth-Incoming-Port' },
  { path: '/dev/tty.usbmodem1421', manufacturer: 'Arduino (www.arduino.cc)', serialNumber: '752303138333518011C1', vendorId: '2341', productId: '0043' },
  { path: '/dev/tty.usbserial-0001', manufacturer: 'Silicon Labs', serialNumber: '0001', vendorId: '10c4', productId: 'ea60' },
  { path: '/dev/tty.debug-console' },
];
