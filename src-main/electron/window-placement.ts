/**
 * Where the main window opens: the size and position saved last time, moved and shrunk as little
 * as needed to be reachable on the displays attached now (a laptop undocked from its second
 * monitor, a projector's lower resolution). Pure, so every display layout is a unit test.
 */

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The part of Electron's Display used here: the usable area (without task bars and docks). */
export interface DisplayArea {
  workArea: Rect;
}

export interface SavedWindowState {
  bounds: Rect;
  maximized: boolean;
}

export interface Placement {
  /** Omitted x/y: let the window system place it (first start). */
  bounds: { x?: number; y?: number; width: number; height: number };
  maximized: boolean;
}

export interface PlacementDefaults {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
}

/** How much of the window must lie on a display for the saved position to count as visible there. */
const MIN_VISIBLE = 0.5;

export function placeWindow(saved: SavedWindowState | null, displays: readonly DisplayArea[], primary: DisplayArea, d: PlacementDefaults): Placement {
  if (!saved) return { bounds: { width: d.width, height: d.height }, maximized: false };
  const b = saved.bounds;
  const area = b.width * b.height;
  // The display showing most of the window; none showing enough means it would open out of reach.
  let best: DisplayArea | null = null;
  let bestOverlap = 0;
  for (const display of displays) {
    const o = overlap(b, display.workArea);
    if (o > bestOverlap) {
      best = display;
      bestOverlap = o;
    }
  }
  const home = best !== null && bestOverlap >= MIN_VISIBLE * area ? best : null;
  const target = (home ?? primary).workArea;
  // Never larger than the display it opens on (a resolution that shrank), never below the minimum
  // size unless the display itself is smaller.
  const width = clamp(b.width, Math.min(d.minWidth, target.width), target.width);
  const height = clamp(b.height, Math.min(d.minHeight, target.height), target.height);
  if (!home) {
    // Its display went away: centre it on the primary display.
    return {
      bounds: { x: target.x + Math.round((target.width - width) / 2), y: target.y + Math.round((target.height - height) / 2), width, height },
      maximized: saved.maximized,
    };
  }
  // Mostly visible: nudge it fully onto its display (title bar included) without moving it further.
  const x = clamp(b.x, target.x, target.x + target.width - width);
  const y = clamp(b.y, target.y, target.y + target.height - height);
  return { bounds: { x, y, width, height }, maximized: saved.maximized };
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(Math.max(v, lo), hi);
}
