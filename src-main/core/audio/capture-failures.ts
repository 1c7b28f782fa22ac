/** What a person reads when the capture process stops on its own: what happened, and what to do. */
import { CoreError } from '../errors.js';
import { DEFAULT_DEVICE_ID, type AudioDevice } from './worker-protocol.js';

/** The process died while capturing (the supervisor then restarts it, if it may). */
export function deathErrorFor(exit: { signal: NodeJS.Signals | null; code: number | null }, device: AudioDevice): CoreError {
  const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? 'unknown'}`;
  return new CoreError(
    'Unavailable',
    `The audio capture process stopped (${how}) while recording from "${device.name}" — the microphone may have been unplugged or taken by another application. Check it and start again; what was recorded so far is kept as an incomplete sample.`,
    { reason: 'worker-died', disconnected: true, signal: exit.signal, exitCode: exit.code },
  );
}

/** The process died while opening the device: the start fails with this. */
export function openFailedError(err: CoreError, deviceId: string): CoreError {
  const d = err.details as { signal?: string | null; exitCode?: number | null };
  const how = d.signal ? `signal ${d.signal}` : `exit code ${d.exitCode ?? 'unknown'}`;
  const which = deviceId === DEFAULT_DEVICE_ID ? 'the default microphone' : `microphone ${deviceId}`;
  return new CoreError(
    'Unavailable',
    `Could not open ${which}: the audio capture process stopped (${how}) while opening it. It may be in use by another application, unplugged, or not supported by the sound system. Close other recording apps, check the connection, or pick another device.`,
    { ...d, reason: 'open-failed' },
  );
}
