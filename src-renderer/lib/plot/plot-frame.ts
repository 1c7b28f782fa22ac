/**
 * Where the live plot drew its last frame, for what is drawn in line with it (the model's strip):
 * the drawing area in CSS pixels of the plot's host, and the rows it spans, the newest at its right
 * edge. The plot writes it on each frame it draws; it is a plain object, not reactive state.
 */
export interface PlotFrame {
  /** The drawing area's left edge and width (CSS px). */
  left: number;
  width: number;
  /** Rows from the left edge to the right edge (the newest row), and their rate. */
  spanRows: number;
  /** The live view's row count when it drew (the newest row is this − 1). */
  rows: number;
  rateHz: number;
  /** Frames drawn: moves when anything above moved. */
  drawn: number;
}

export function newPlotFrame(): PlotFrame {
  return { left: 0, width: 0, spanRows: 0, rows: 0, rateHz: 0, drawn: 0 };
}
