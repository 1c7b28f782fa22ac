// AT+CONFIG? as the official firmware prints it, in the two layouts found in its sources:
// - "legacy" (Mbed REPL, AT <= 1.3: firmware-st-b-l475e-iot01a source/repl/at_cmds.h): "\n" line
//   ends, no transfer rate; before AT 1.2 sensors are listed by name only;
// - "sdk" (firmware-sdk AT server, AT >= 1.4: e.g. firmware-alif-e7 ei_at_handlers.cpp): a mix of
//   "\n" and "\r\n", a "Data Transfer Baudrate", Snapshot and Inference sections.
import { SENSORS } from './at-board-sample.mjs';

const f2 = (n) => n.toFixed(2);

/** @param {{ legacy: boolean, minor: number, s: Record<string, any>,
 *  o: { version: string, transferBaud: number, deviceId: string, deviceType: string } }} fw */
export function configText(fw) {
  const { s, o } = fw;
  const sensorLines = SENSORS.map((x) => fw.minor < 2 && fw.legacy
    ? `${x.name}\n`
    : `Name: ${x.name}, Max sample length: ${x.maxSampleLengthS}s, Frequencies: [${x.frequencies.map((f) => `${f2(f)}Hz`).join(', ')}]\n`).join('');
  const sampling =
    `Label:     ${s.label}\n` +
    `Interval:  ${f2(s.intervalMs)} ms.\n` +
    `Length:    ${s.lengthMs} ms.\n` +
    `HMAC key:  ${s.hmacKey}\n`;
  const upload = `Api Key:   ${s.apiKey}\nHost:      ${s.host}\nPath:      ${s.path}\n`;
  const remote = `URL:        ${s.mgmtUrl}\nConnected:  0\nLast error: \n`;

  if (fw.legacy) {
    return '===== Device info =====\n' +
      `ID:         ${o.deviceId}\nType:       ${o.deviceType}\nAT Version: ${o.version}\n\n` +
      '===== Sensors ======\n' + sensorLines + '\n' +
      '===== WIFI =====\n' +
      `Present:   1\nSSID:      lab-wifi\nPassword:  wifi-secret-pw\nSecurity:  3\nMAC:       ${o.deviceId}\nConnected: 0\n\n` +
      '===== Sampling parameters =====\n' + sampling + '\n' +
      '===== Upload settings =====\n' + upload + '\n' +
      '===== Remote management =====\n' + remote + '\n';
  }
  const crlf = (t) => t.replace(/\r?\n/g, '\r\n');
  return '===== Device info =====\n' +
    crlf(`ID:         ${o.deviceId}\nType:       ${o.deviceType}\nAT Version: ${o.version}\n` +
      `Data Transfer Baudrate: ${o.transferBaud}\n\n`) +
    '===== Sensors ======\r\n' + sensorLines + '\r\n' +
    crlf('===== Snapshot ======\nHas snapshot:    0\nSupports stream: 0\n\n') +
    crlf('===== Inference ======\nSensor:           2\nModel type:       classification\n\n') +
    crlf('===== WIFI =====\nSSID:      \nPassword:  \nSecurity:  0\nMAC:       00:00:00:00:00:00\nConnected: 0\nPresent:   0\n\n') +
    '===== Sampling parameters =====\r\n' + crlf(sampling) + '\r\n' +
    '===== Upload settings =====\r\n' + crlf(upload) + '\r\n' +
    '===== Remote management =====\r\n' + crlf(remote) + '\r\n';
}
