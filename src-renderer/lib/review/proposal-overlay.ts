import type { DetectedWindow } from '../../../src-main/core/contract/contract.js';

/**
 * Proposed split windows over a plot or spectrogram: a green band per window, numbered as in
 * the split panel's list, with the detected event itself marked along the bottom.
 * `x` maps ms to canvas pixels; `dark` picks colours that read on the spectrogram; `focused` is
 * the window with keyboard focus, outlined thicker so it shows on the spectrogram too.
 */
export function drawProposals(ctx: CanvasRenderingContext2D, windows: DetectedWindow[], x: (ms: number) => number, top: number, height: number, dpr: number, dark = false, focused: number | null = null): void {
  ctx.save();
  ctx.font = `${11 * dpr}px system-ui, sans-serif`;
  ctx.lineWidth = dpr;
  windows.forEach((w, i) => {
    const x0 = x(w.startMs);
    const x1 = x(w.endMs);
    const width = Math.max(1, x1 - x0);
    ctx.fillStyle = dark ? 'rgba(120,255,170,0.12)' : 'rgba(23,163,91,0.13)';
    ctx.fillRect(x0, top, width, height);
    ctx.strokeStyle = dark ? 'rgba(120,255,170,0.9)' : 'rgba(15,122,74,0.85)';
    ctx.lineWidth = i === focused ? 3 * dpr : dpr;
    ctx.strokeRect(x0, top, width, height);
    ctx.fillStyle = dark ? 'rgba(120,255,170,0.8)' : 'rgba(15,122,74,0.7)';
    const e0 = x(w.eventStartMs);
    ctx.fillRect(e0, top + height - 4 * dpr, Math.max(1, x(w.eventEndMs) - e0), 4 * dpr);
    ctx.fillStyle = dark ? '#c8ffdc' : '#0f7a4a';
    ctx.fillText(String(i + 1), x0 + 3 * dpr, top + 12 * dpr);
  });
  ctx.restore();
}
