/** Sources connected to the platform (remote management): the platform can ask them for a take. */
import { z } from 'zod';
import { none } from './method-args.js';
import { RemoteDevice } from './remote-schema.js';

export const remoteMethods = {
  /** Sources connected to the platform as devices (remote management), one entry per source that has been switched on. */
  'remote.list': { input: none, output: z.array(RemoteDevice) },
  /** "Connect to platform" on or off for a source; remembered per board and microphone. */
  'remote.setEnabled': {
    input: z.object({
      sourceId: z.string().min(1),
      enabled: z.boolean(),
      /** The id the platform knows this device by; null = the default (the board's own id, its USB serial number, or one derived from this computer and the port). */
      deviceId: z.string().trim().min(1).max(128).regex(/^[\x21-\x7e]+$/, 'device id must be printable ASCII without spaces').nullable().optional(),
    }).strict(),
    output: RemoteDevice,
  },
  /** Renames the device on the platform (management API: devices/{deviceId}/rename). */
  'remote.rename': { input: z.object({ sourceId: z.string().min(1), name: z.string().trim().min(1, 'name must not be empty').max(128) }).strict(), output: RemoteDevice },
} as const;
