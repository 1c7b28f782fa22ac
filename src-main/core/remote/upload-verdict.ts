import type { EventBus } from '../event-bus.js';
import type { SampleStore } from '../samples/sample-store.js';
import type { UploadQueue } from '../upload/upload-queue.js';

export type Verdict = { ok: true; platformSampleId: number | null } | { ok: false; error: string };

/**
 * Waits until the platform has said yes or no about one sample the queue holds: `uploaded` is a
 * yes only because the queue read `files[].success` (never before). A sample that will not be
 * sent by itself (held back by the quality check, or the queue paused) is a no with the reason,
 * while the sample stays as it is: queued samples still upload when the queue resumes.
 */
export function uploadVerdict(d: { bus: EventBus; store: SampleStore; queue: UploadQueue }, id: string, signal: AbortSignal): Promise<Verdict> {
  return new Promise<Verdict>((resolve) => {
    const offs: Array<() => void> = [];
    const done = (v: Verdict) => {
      for (const off of offs.splice(0)) off();
      resolve(v);
    };
    const check = () => {
      let s;
      try {
        s = d.store.get(id);
      } catch {
        return done({ ok: false, error: 'The take was deleted on this computer before it was uploaded.' });
      }
      if (s.state === 'uploaded') return done({ ok: true, platformSampleId: s.platformSampleId });
      if (s.state === 'rejected') return done({ ok: false, error: `The platform rejected the take: ${s.error ?? 'no reason given'}. It is kept on this computer.` });
      if (s.state === 'failed') return done({ ok: false, error: `The take could not be uploaded: ${s.error ?? 'no reason given'}. It is kept on this computer and can be sent again from Capture Desk.` });
      if (s.state === 'local' && s.heldBack) {
        const why = s.quality?.findings.map((f) => f.message).join(' ') ?? 'the data-quality check flagged it';
        return done({ ok: false, error: `The take is saved on this computer but held back by the data-quality check (${why}). Review it in Capture Desk and choose "Upload anyway" if it is right.` });
      }
      if (s.state === 'local') return done({ ok: false, error: `The take is saved on this computer but was not queued for upload${s.note ? ` (${s.note})` : ''}.` });
      const paused = d.queue.pausedReason();
      if (paused) return done({ ok: false, error: `The take is saved on this computer and queued, but uploads are paused: ${paused} It uploads once they resume.` });
    };
    offs.push(d.bus.on('samples.changed', ({ ids }) => (ids.includes(id) ? check() : undefined)));
    offs.push(d.bus.on('queue.changed', () => check()));
    const onAbort = () => done({ ok: false, error: 'Capture Desk is shutting down; the take is saved and queued, and uploads at its next start.' });
    signal.addEventListener('abort', onAbort, { once: true });
    offs.push(() => signal.removeEventListener('abort', onAbort));
    check();
  });
}
