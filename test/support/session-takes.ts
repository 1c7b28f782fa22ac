import type { RecordingStatus, Sample } from '../../src-main/core/contract/contract.js';
import type { CoreHarness } from './core-harness.js';

/**
 * Records one session of a board and the microphone (started in that call, so a cold one warms
 * up meanwhile), marks "knock" as soon as it has started, and waits until it is saved: the two
 * samples, where the mark fell in each (s from the take's start) and how long the start took.
 */
export async function boardAndMicrophoneTake(
  h: Pick<CoreHarness, 'call' | 'saved'>,
  o: { sourceIds: string[]; lengthMs: number; boardHz: number },
): Promise<{ done: RecordingStatus; board: Sample; mic: Sample; boardAt: number; micAt: number; startupMs: number }> {
  const asked = performance.now();
  const st = await h.call<RecordingStatus>('record.start', { sourceIds: o.sourceIds, label: 'both', category: 'training', lengthMs: o.lengthMs, queue: false });
  const startupMs = performance.now() - asked;
  await h.call('record.mark', { sessionId: st.sessionId, label: 'knock' });
  const done = await h.saved(st.sessionId, 20_000);
  const { samples } = await h.call<{ samples: Sample[] }>('samples.list', {});
  const board = samples.find((s) => s.kind === 'sensor' && s.metadata.session === st.sessionId)!;
  const mic = samples.find((s) => s.kind === 'audio' && s.metadata.session === st.sessionId)!;
  const markAt = (s: Sample | undefined, hz: number) => (s?.structuredLabels?.find((l) => l.label === 'knock')?.startIndex ?? NaN) / hz;
  return { done, board, mic, boardAt: markAt(board, o.boardHz), micAt: markAt(mic, mic ? Number(mic.extra.sample_rate) : 1), startupMs };
}
