import type { Api } from '../api/client.js';

/**
 * Plays an audio sample through an <audio> element fed with WAV bytes from the core (a blob URL,
 * so both shells work the same and the CSP's media-src blob: covers it). Long samples come in
 * pieces; the next piece is fetched when one ends. `positionMs` drives the playhead.
 */
export class AudioPlayer {
  playing = $state(false);
  positionMs = $state<number | null>(null);
  error = $state<string | null>(null);
  #audio: HTMLAudioElement | null = null;
  #url: string | null = null;
  #pieceStartMs = 0;
  #stopAtMs = Infinity;
  #frame = 0;
  #run = 0;

  constructor(private readonly api: Api, private readonly sampleId: string) {}

  async toggle(fromMs: number, toMs?: number): Promise<void> {
    if (this.playing) return this.pause();
    await this.#playFrom(fromMs, toMs ?? Infinity, ++this.#run);
  }

  pause(): void {
    this.#run++;
    this.#audio?.pause();
    this.playing = false;
    cancelAnimationFrame(this.#frame);
  }

  dispose(): void {
    this.pause();
    this.#release();
    this.positionMs = null;
  }

  async #playFrom(fromMs: number, toMs: number, run: number): Promise<void> {
    try {
      this.error = null;
      const piece = await this.api.call('samples.audio', { id: this.sampleId, startMs: fromMs, ...(Number.isFinite(toMs) ? { endMs: toMs } : {}) });
      if (run !== this.#run) return;
      this.#release();
      this.#url = URL.createObjectURL(new Blob([piece.wav as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }));
      const audio = (this.#audio ??= new Audio());
      audio.src = this.#url;
      this.#pieceStartMs = piece.startMs;
      this.#stopAtMs = toMs;
      audio.onended = () => {
        if (run !== this.#run) return;
        if (piece.truncated && piece.endMs < toMs) void this.#playFrom(piece.endMs, toMs, run);
        else this.#finish();
      };
      await audio.play();
      this.playing = true;
      const tick = () => {
        if (run !== this.#run) return;
        this.positionMs = this.#pieceStartMs + audio.currentTime * 1000;
        this.#frame = requestAnimationFrame(tick);
      };
      tick();
    } catch (err) {
      if (run === this.#run) {
        this.error = err instanceof Error ? err.message : String(err);
        this.#finish();
      }
    }
  }

  #finish(): void {
    this.playing = false;
    cancelAnimationFrame(this.#frame);
  }

  #release(): void {
    if (this.#url) URL.revokeObjectURL(this.#url);
    this.#url = null;
  }
}
