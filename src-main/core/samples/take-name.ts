import { portableFileName } from '../fs/portable-name.js';

/**
 * A new take's file name: its label ("unlabeled" without one), then what tells it apart
 * (`a1b2c3d4.cbor`). The label is a person's words ("left/right", "tap?"): kept as typed in the
 * sample's label, but its name must stay one file on every OS and on the platform, which stored
 * "left/right.….cbor" as "right.….cbor". The label travels in its own header, never from this name.
 */
export function takeName(label: string | null, rest: string): string {
  return portableFileName(`${label ?? 'unlabeled'}.${rest}`);
}
