// Which takes the platform asked for are being recorded now, from two reports of the core: the
// recording service's record.state (takes of numeric boards and microphones, with their start
// time) and each device's current request (which also covers boards that record on their own, and
// is there again after a reload).
import type { PlatformRequestInfo, RecordingStatus, RemoteDevice } from '../../../src-main/core/contract/contract.js';

export interface PlatformTake extends PlatformRequestInfo {
  /** Sources recording it (empty when only the device's request told us). */
  sourceIds: string[];
  /** When recording began (ISO), if known. */
  startedAt: string | null;
  saving: boolean;
}

/** A take of the recording service that the platform asked for and that is not over yet; else null. */
export function takeOfStatus(s: RecordingStatus): PlatformTake | null {
  if (!s.platform || (s.state !== 'recording' && s.state !== 'saving')) return null;
  return { ...s.platform, sourceIds: s.sourceIds, startedAt: s.startedAt, saving: s.state === 'saving' };
}

/** The takes to show: the recording service's, then devices recording a request none of those covers. */
export function platformTakesShown(fromRecordings: PlatformTake[], devices: RemoteDevice[]): PlatformTake[] {
  const covered = new Set(fromRecordings.map((t) => t.deviceId));
  const fromDevices = devices.flatMap((d): PlatformTake[] => {
    const r = d.request;
    if (!d.enabled || !r || covered.has(d.deviceId) || (r.stage !== 'recording' && r.stage !== 'saving')) return [];
    return [{
      deviceId: d.deviceId, label: r.label, lengthMs: r.lengthMs, collectedSampleCount: r.collectedSampleCount, targetSampleCount: r.targetSampleCount,
      sourceIds: [d.sourceId], startedAt: null, saving: r.stage === 'saving',
    }];
  });
  return [...fromRecordings, ...fromDevices];
}
