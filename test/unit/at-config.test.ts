import { describe, expect, it } from 'vitest';
import { parseAtConfig, parseVersion, versionAtLeast } from '../../src-main/core/serial/at/at-config.js';

const lines = (text: string) => text.split(/\r?\n/);

// Mbed REPL, AT 1.3.0 (layout of firmware-st-b-l475e-iot01a source/repl/at_cmds.h).
const MBED_1_3 = `===== Device info =====
ID:         C0:FF:EE:00:11:22
Type:       DISCO_L475VG_IOT01A
AT Version: 1.3.0

===== Sensors ======
Name: Built-in accelerometer, Max sample length: 300s, Frequencies: [62.50Hz, 100.00Hz]
Name: Built-in microphone, Max sample length: 60s, Frequencies: [16000.00Hz]

===== WIFI =====
Present:   1
SSID:      lab-net
Password:  hunter2-wifi
Security:  3
MAC:       C0:FF:EE:00:11:22
Connected: 1

===== Sampling parameters =====
Label:     idle
Interval:  16.00 ms.
Length:    10000 ms.
HMAC key:  8f3a0c-hmac

===== Upload settings =====
Api Key:   ei_0123abcd
Host:      ingestion.edgeimpulse.com
Path:      /api/training/data

===== Remote management =====
URL:        wss://remote-mgmt.edgeimpulse.com
Connected:  0
Last error: Failed to connect
`;

// Early firmware: sensors by name only, no version-specific lines beyond AT Version.
const OLD_1_1 = `===== Device info =====
ID:         00:11
Type:       NRF52840_DK
AT Version: 1.1.0

===== Sensors ======
Built-in accelerometer
Built-in microphone
Light sensor

===== Sampling parameters =====
Label:     
Interval:  0.06 ms.
Length:    1000 ms.
HMAC key:  
`;

// firmware-sdk AT server, AT 1.8.0 (layout of firmware-alif-e7 ei_at_handlers.cpp): mixed line
// ends, transfer rate, Snapshot and Inference sections, sensor names with commas.
const SDK_1_8 = '===== Device info =====\n' +
  'ID:         E7:AB:01\r\nType:       ALIF_E7_DK\r\nAT Version: 1.8.0\r\nData Transfer Baudrate: 2000000\r\n\r\n' +
  '===== Sensors ======\r\n' +
  'Name: Microphone, Max sample length: 2s, Frequencies: [16000.00Hz]\n' +
  'Name: Accelerometer, gyro (fusion), Max sample length: 60s, Frequencies: [100.00Hz, 50.00Hz]\n' +
  'Name: Camera, Max sample length: 0s, Frequencies: []\n\r\n' +
  '===== Snapshot ======\r\nHas snapshot:    1\r\nSupports stream: 1\r\nColor depth:     RGB\r\nResolutions:     [ 96x96, 160x160, 320x320 ]\r\n\r\n' +
  '===== Inference ======\r\nSensor:           3\r\nModel type:       classification\r\n\r\n' +
  '===== WIFI =====\r\nSSID:      \r\nPassword:  \r\nSecurity:  0\r\nMAC:       00:00:00:00:00:00\r\nConnected: 0\r\nPresent:   0\r\n\r\n' +
  '===== Sampling parameters =====\r\nLabel:     wave: fast\r\nInterval:  0.06 ms.\r\nLength:    2000 ms.\r\nHMAC key:  \r\n\r\n' +
  '===== Upload settings =====\r\nApi Key:   \r\nHost:      \r\nPath:      \r\n\r\n' +
  '===== Remote management =====\r\nURL:        \r\nConnected:  0\r\nLast error: \r\n\r\n';

// RP2040 firmware: "16.00ms." without a space, transfer rate unknown, extra padding everywhere.
const RP2040 = `  ===== Device info =====
ID:         E6:61
Type:       RASPBERRY_PI_RP2040
AT Version:     1.6.0
Data Transfer Baudrate: UNKNOWN

=====   Sampling parameters   =====
Label:       knock
Interval:    16.00ms.
Length:      3000   ms.
`;

describe('parseAtConfig', () => {
  it('reads the Mbed REPL layout (AT 1.3)', () => {
    const c = parseAtConfig(lines(MBED_1_3));
    expect(c).toEqual({
      deviceId: 'C0:FF:EE:00:11:22',
      deviceType: 'DISCO_L475VG_IOT01A',
      atVersion: { major: 1, minor: 3, patch: 0 },
      transferBaudRate: null,
      sensors: [
        { name: 'Built-in accelerometer', maxSampleLengthS: 300, frequencies: [62.5, 100] },
        { name: 'Built-in microphone', maxSampleLengthS: 60, frequencies: [16000] },
      ],
      snapshot: null,
      wifi: { present: true, connected: true, ssid: 'lab-net' },
      sampling: { label: 'idle', intervalMs: 16, lengthMs: 10000, hmacKeySet: true },
      upload: { apiKeySet: true, host: 'ingestion.edgeimpulse.com', path: '/api/training/data' },
      remote: { url: 'wss://remote-mgmt.edgeimpulse.com', connected: false, lastError: 'Failed to connect' },
    });
  });

  it('keeps no key or password the board printed', () => {
    const text = JSON.stringify(parseAtConfig(lines(MBED_1_3)));
    for (const secret of ['hunter2-wifi', '8f3a0c-hmac', 'ei_0123abcd']) expect(text).not.toContain(secret);
  });

  it('reads sensors listed by name only, with the daemon\'s defaults for the known ones', () => {
    const c = parseAtConfig(lines(OLD_1_1));
    expect(c.atVersion).toEqual({ major: 1, minor: 1, patch: 0 });
    expect(c.sensors).toEqual([
      { name: 'Built-in accelerometer', maxSampleLengthS: 300, frequencies: [62.5, 100] },
      { name: 'Built-in microphone', maxSampleLengthS: 60, frequencies: [16000] },
      { name: 'Light sensor', maxSampleLengthS: null, frequencies: [] },
    ]);
    expect(c.sampling).toEqual({ label: '', intervalMs: 0.06, lengthMs: 1000, hmacKeySet: false });
    expect(c.wifi).toBeNull();
    expect(c.remote).toBeNull();
    expect(c.upload).toEqual({ apiKeySet: false, host: '', path: '' });
  });

  it('reads the firmware-sdk layout (AT 1.8) with mixed line ends and extra sections', () => {
    const c = parseAtConfig(lines(SDK_1_8));
    expect(c.deviceId).toBe('E7:AB:01');
    expect(c.atVersion).toEqual({ major: 1, minor: 8, patch: 0 });
    expect(c.transferBaudRate).toBe(2000000);
    expect(c.sensors).toEqual([
      { name: 'Microphone', maxSampleLengthS: 2, frequencies: [16000] },
      { name: 'Accelerometer, gyro (fusion)', maxSampleLengthS: 60, frequencies: [100, 50] },
      { name: 'Camera', maxSampleLengthS: 0, frequencies: [] },
    ]);
    expect(c.snapshot).toEqual({ hasSnapshot: true, resolutions: [{ width: 96, height: 96 }, { width: 160, height: 160 }, { width: 320, height: 320 }] });
    expect(c.wifi).toEqual({ present: false, connected: false, ssid: '' });
    expect(c.sampling).toEqual({ label: 'wave: fast', intervalMs: 0.06, lengthMs: 2000, hmacKeySet: false });
    expect(c.upload).toEqual({ apiKeySet: false, host: '', path: '' });
  });

  it('tolerates padding, "16.00ms." and an unknown transfer rate, with sections missing', () => {
    const c = parseAtConfig(lines(RP2040));
    expect(c).toMatchObject({
      deviceId: 'E6:61',
      atVersion: { major: 1, minor: 6, patch: 0 },
      transferBaudRate: null,
      sensors: [],
      sampling: { label: 'knock', intervalMs: 16, lengthMs: 3000, hmacKeySet: false },
    });
  });

  it('refuses output that is not a board describing itself', () => {
    expect(() => parseAtConfig(['Not a valid AT command (AT+CONFIG?)'])).toThrow(expect.objectContaining({ code: 'Unavailable' }));
    expect(() => parseAtConfig([])).toThrow(/Device info/);
  });

  it('assumes AT 1.0.0 when no version is printed, as the daemon does', () => {
    expect(parseAtConfig(['===== Device info =====', 'ID: x']).atVersion).toEqual({ major: 1, minor: 0, patch: 0 });
  });
});

describe('AT versions', () => {
  it('parses and compares', () => {
    expect(parseVersion('1.8')).toEqual({ major: 1, minor: 8, patch: 0 });
    expect(parseVersion('v2.0.1-beta')).toEqual({ major: 2, minor: 0, patch: 1 });
    expect(parseVersion('?')).toEqual({ major: 1, minor: 0, patch: 0 });
    expect(versionAtLeast({ major: 1, minor: 6, patch: 0 }, 1, 6)).toBe(true);
    expect(versionAtLeast({ major: 1, minor: 5, patch: 9 }, 1, 6)).toBe(false);
    expect(versionAtLeast({ major: 2, minor: 0, patch: 0 }, 1, 6)).toBe(true);
  });
});
