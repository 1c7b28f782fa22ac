import { describe, expect, it } from 'vitest';
import type { SerialPortInfo } from '../../../src-main/core/contract/contract.js';
import { explainOpenError, type OpenFailureContext } from '../../../src-main/core/serial/open-failure.js';
import type { DeviceAccess, PortHolder } from '../../../src-main/core/serial/port-holders.js';

const ENOENT = new Error('Error: No such file or directory, cannot open /dev/ttyACM0');
const EACCES = new Error('Error: Permission denied, cannot open /dev/ttyACM0');
const LOCKED = new Error('Error Resource temporarily unavailable Cannot lock port');

function ctx(o: { ports?: SerialPortInfo[]; serialAt?: Record<string, string>; access?: DeviceAccess | null; holders?: PortHolder[]; groups?: number[]; user?: string; fail?: boolean } = {}): OpenFailureContext {
  return {
    platform: 'linux',
    pid: 100,
    list: async () => {
      if (o.fail) throw new Error('udevadm: not found');
      return o.ports ?? [];
    },
    lastSerialAt: (p) => o.serialAt?.[p],
    system: {
      holders: async () => o.holders ?? [],
      access: async () => o.access ?? null,
      ownGroups: () => o.groups ?? [1000],
      userName: () => o.user ?? 'ana',
    },
  };
}

const nano: SerialPortInfo = { path: '/dev/ttyACM1', friendlyName: 'Arduino (/dev/ttyACM1)', serialNumber: 'ABC123', vendorId: '2341', productId: '805a', board: 'Arduino Nano 33 BLE' };

describe('a port that will not open, explained from what the system shows', () => {
  it('gone: the same board (by serial number) at another path is named, with that path', async () => {
    const e = await explainOpenError('/dev/ttyACM0', ENOENT, ctx({ ports: [nano], serialAt: { '/dev/ttyACM0': 'ABC123' } }));
    expect(e).toMatchObject({ code: 'NotFound', details: { movedTo: '/dev/ttyACM1' } });
    expect(e.message).toBe('No serial port at /dev/ttyACM0 any more: the same board (serial number ABC123) is now at /dev/ttyACM1. Open /dev/ttyACM1 instead.');
  });

  it('gone, board unknown: offers the board that is there, without claiming it is the same', async () => {
    const e = await explainOpenError('/dev/ttyACM0', ENOENT, ctx({ ports: [nano, { path: '/dev/ttyS0', friendlyName: 'Serial port (/dev/ttyS0)' }] }));
    expect(e.message).toBe('No serial port at /dev/ttyACM0. Is the board plugged in? A board is at /dev/ttyACM1 (Arduino Nano 33 BLE): open /dev/ttyACM1 if it is the one.');
  });

  it('gone, and the listing fails: the general sentence stays', async () => {
    const e = await explainOpenError('/dev/ttyACM0', ENOENT, ctx({ fail: true }));
    expect(e.message).toMatch(/^No serial port at \/dev\/ttyACM0\. Is the board plugged in\?/);
  });

  it('permission: a user added to the group in /etc/group but not in this session is told to log in again', async () => {
    const e = await explainOpenError('/dev/ttyACM0', EACCES, ctx({ access: { gid: 20, group: 'dialout', mode: 0o660, members: ['ana'] }, groups: [1000] }));
    expect(e.message).toBe('Permission denied opening /dev/ttyACM0: you were added to its group "dialout", but this session started before that. Log out and in again (or run "newgrp dialout" in this terminal).');
  });

  it('busy: a port this process holds is said so; a port nobody visible holds keeps the general sentence', async () => {
    expect((await explainOpenError('/dev/ttyACM0', LOCKED, ctx({ holders: [{ pid: 100, name: 'node' }] }))).message).toMatch(/already open in this Capture Desk/);
    expect((await explainOpenError('/dev/ttyACM0', LOCKED, ctx({ holders: [] }))).message).toMatch(/is in use by another program/);
  });
});
