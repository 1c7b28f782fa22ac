// The main window's size, position and maximized state, kept in <userData>/window-state.json
// across restarts. Structural types instead of Electron's, so a test can drive it without Electron.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../core/log.js';
import { placeWindow, type DisplayArea, type Placement, type PlacementDefaults, type Rect, type SavedWindowState } from './window-placement.js';

export const WINDOW_STATE_FILE = 'window-state.json';
export const WINDOW_DEFAULTS: PlacementDefaults = { width: 1280, height: 820, minWidth: 800, minHeight: 560 };
/** Moves and resizes arrive dozens of times a second while dragging: write once it settles. */
const SAVE_DELAY_MS = 400;

export interface ScreenLike {
  getAllDisplays(): DisplayArea[];
  getPrimaryDisplay(): DisplayArea;
}

export interface TrackedWindow {
  /** Bounds in the normal state, whether the window is maximized, minimized or not. */
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  on(event: 'move' | 'resize' | 'maximize' | 'unmaximize' | 'close', listener: () => void): unknown;
}

/** Where to open the window now: last time's place, made visible on today's displays. */
export function restorePlacement(userData: string, screen: ScreenLike, log: Logger): Placement {
  return placeWindow(readWindowState(join(userData, WINDOW_STATE_FILE), log), screen.getAllDisplays(), screen.getPrimaryDisplay(), WINDOW_DEFAULTS);
}

/** The saved state, or null when there is none or it is unusable (then the window opens at its default size). */
export function readWindowState(file: string, log: Logger): SavedWindowState | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.warn('could not read the saved window position; using the default', { file, error: String(err) });
    return null;
  }
  try {
    const v = JSON.parse(text) as { bounds?: Partial<Rect>; maximized?: unknown };
    const b = v.bounds ?? {};
    const ok = [b.x, b.y, b.width, b.height].every((n) => typeof n === 'number' && Number.isFinite(n)) && b.width! > 0 && b.height! > 0 && typeof v.maximized === 'boolean';
    if (ok) return { bounds: { x: b.x!, y: b.y!, width: b.width!, height: b.height! }, maximized: v.maximized as boolean };
  } catch {
    // reported below, like a file of the wrong shape
  }
  log.warn('the saved window position is damaged; using the default (it is rewritten when the window closes)', { file });
  return null;
}

/** Atomic (temp file, fsync, rename): a crash while saving leaves the old state, never a torn file. */
export function writeWindowState(file: string, state: SavedWindowState): void {
  const tmp = join(dirname(file), `.${WINDOW_STATE_FILE}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(state) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/**
 * Saves the window's state a moment after it stops moving or resizing, and at once when it closes
 * (synchronously: the app may be quitting, and the write must land before the process ends).
 */
export function trackWindowState(win: TrackedWindow, userData: string, log: Logger): void {
  const file = join(userData, WINDOW_STATE_FILE);
  let timer: NodeJS.Timeout | null = null;
  const save = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    try {
      writeWindowState(file, { bounds: win.getNormalBounds(), maximized: win.isMaximized() });
    } catch (err) {
      // Losing the window position is an inconvenience, not worth interrupting the user for.
      log.warn('could not save the window position', { file, error: String(err) });
    }
  };
  const later = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(save, SAVE_DELAY_MS);
    timer.unref();
  };
  for (const event of ['move', 'resize', 'maximize', 'unmaximize'] as const) win.on(event, later);
  win.on('close', save);
}
