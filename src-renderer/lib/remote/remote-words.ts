// What a source's platform connection and the platform's requests read like in the device list
// and the live view. Pure: the components and the tests share them.
import type { PlatformRequestInfo, RemoteDevice, RemoteRequest } from '../../../src-main/core/contract/contract.js';

/** Whole seconds left of a wait that was `retryInMs` long `elapsedMs` ago (never below 0). */
export function secondsLeft(retryInMs: number, elapsedMs: number): number {
  return Math.max(0, Math.ceil((retryInMs - elapsedMs) / 1000));
}

/** Seconds as a person says them: "2", "1.5", "0.25". */
export function seconds(ms: number): string {
  return String(Math.round(ms / 10) / 100);
}

/**
 * The connection's state in words. `elapsedMs` is the time since the event that set `retryInMs`;
 * null leaves the countdown out (what a screen reader is told once, not every second).
 */
export function remoteStateText(d: Pick<RemoteDevice, 'state' | 'retryInMs' | 'reason'>, elapsedMs: number | null): string {
  const retry = d.retryInMs === null || elapsedMs === null ? null : secondsLeft(d.retryInMs, elapsedMs);
  switch (d.state) {
    case 'off':
      return 'Not connected';
    case 'preparing':
      return 'Preparing…';
    case 'connecting':
      return 'Connecting…';
    case 'online':
      return 'Online';
    case 'recording':
      return 'Recording for the platform';
    case 'reconnecting':
      return retry === null || retry === 0 ? 'Reconnecting…' : `Reconnecting in ${retry} s`;
    case 'refused':
      return `Refused: ${d.reason ?? 'the platform did not accept this device'}`;
    case 'failed': {
      const why = `Not available: ${d.reason ?? 'the source cannot be read'}`;
      return retry === null ? why : `${why} (trying again ${retry === 0 ? 'now' : `in ${retry} s`})`;
    }
  }
}

/** Only the first two ever need a clock: the rest read the same until the next event. */
export function ticks(d: Pick<RemoteDevice, 'state' | 'retryInMs'>): boolean {
  return (d.state === 'reconnecting' || d.state === 'failed') && d.retryInMs !== null;
}

/** "wave, 2 s" — what the platform asked for. */
export function requestSummary(r: Pick<RemoteRequest, 'label' | 'lengthMs'>): string {
  return `${r.label}, ${seconds(r.lengthMs)} s`;
}

/** The platform's progress hint for the label, when it gave one: "3 of 10 for this label". */
export function targetHint(r: Pick<RemoteRequest, 'collectedSampleCount' | 'targetSampleCount'>): string | null {
  if (r.collectedSampleCount === null || r.targetSampleCount === null) return null;
  return `${r.collectedSampleCount} of ${r.targetSampleCount} for this label`;
}

/** The last request of a device and how it went (or where it is), in one line. */
export function requestOutcomeText(r: RemoteRequest): string {
  const what = `Last platform request (${requestSummary(r)})`;
  switch (r.stage) {
    case 'requested':
      return `${what}: starting…`;
    case 'recording':
      return `${what}: recording…`;
    case 'saving':
      return `${what}: saving…`;
    case 'uploading':
      return `${what}: saved${inParts(r)}, uploading…`;
    case 'finished':
      return `${what}: finished, uploaded to the platform${inParts(r)}`;
    case 'failed':
      return `${what}: failed: ${r.error ?? 'no reason given'}`;
  }
}

/** A take a board's restart split (a Nordic board's new session): each part is its own sample. */
function inParts(r: Pick<RemoteRequest, 'sampleIds'>): string {
  return r.sampleIds.length > 1 ? ` in ${r.sampleIds.length} parts (the board restarted during the take)` : '';
}

/** The live view's line while a take the platform asked for records. */
export function platformTakeText(p: Pick<PlatformRequestInfo, 'label' | 'lengthMs'>): string {
  return `Recording for the platform: ${requestSummary(p)}`;
}
