/**
 * Colours of a classification's labels: each label of a learn block gets the palette colour of
 * its place in the block's label list (the platform's order), so a label keeps its colour on the
 * plot, the spectrogram and the legend, and from one sample to the next of the same impulse.
 */
export const LABEL_PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#bab0ac'] as const;

/** A window whose block gives no label (nothing scored). */
export const NO_LABEL_COLOR = '#8a8f98';

export function labelColor(labels: readonly string[], label: string | null): string {
  if (label === null) return NO_LABEL_COLOR;
  const i = labels.indexOf(label);
  if (i >= 0) return LABEL_PALETTE[i % LABEL_PALETTE.length]!;
  // A label the list does not hold (should not happen): a stable pick from its text.
  let h = 0;
  for (const c of label) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return LABEL_PALETTE[h % LABEL_PALETTE.length]!;
}

/** `#rrggbb` with an alpha, as rgba() (band fills let the signal show through). */
export function withAlpha(hex: string, alpha: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!m) return hex;
  return `rgba(${parseInt(m[1]!, 16)},${parseInt(m[2]!, 16)},${parseInt(m[3]!, 16)},${alpha})`;
}

/**
 * The band's fill: the label's colour, or for an uncertain window (top score below the block's
 * minimum confidence) the same colour in diagonal stripes, so "uncertain" reads without colour too.
 */
export function bandFill(color: string, uncertain: boolean): string {
  if (!uncertain) return withAlpha(color, 0.55);
  const a = withAlpha(color, 0.55);
  const b = withAlpha(color, 0.15);
  return `repeating-linear-gradient(135deg, ${a} 0 5px, ${b} 5px 10px)`;
}
