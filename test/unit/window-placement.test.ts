// Where the main window reopens, for the display layouts people actually meet: a second monitor
// unplugged, a lower resolution, a monitor left of the primary (negative coordinates).
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/core/log.js';
import { placeWindow, type DisplayArea, type Rect } from '../../src-main/electron/window-placement.js';
import { readWindowState, trackWindowState, WINDOW_DEFAULTS, WINDOW_STATE_FILE, writeWindowState } from '../../src-main/electron/window-state.js';

const display = (x: number, y: number, width: number, height: number): DisplayArea => ({ workArea: { x, y, width, height } });
// A 1920×1080 laptop panel with a 40 px task bar at the bottom.
const laptop = display(0, 0, 1920, 1040);
const rightMonitor = display(1920, 0, 2560, 1400);
const leftMonitor = display(-2560, -200, 2560, 1400);
const saved = (bounds: Rect, maximized = false) => ({ bounds, maximized });

describe('placeWindow', () => {
  it('opens at the default size, placed by the window system, on first start', () => {
    expect(placeWindow(null, [laptop], laptop, WINDOW_DEFAULTS)).toEqual({ bounds: { width: 1280, height: 820 }, maximized: false });
  });

  it('keeps a saved place that is still on screen, on any monitor', () => {
    const onRight = { x: 2200, y: 100, width: 1600, height: 1000 };
    expect(placeWindow(saved(onRight), [laptop, rightMonitor], laptop, WINDOW_DEFAULTS).bounds).toEqual(onRight);
  });

  it('keeps negative coordinates on a monitor left of (and above) the primary one', () => {
    const onLeft = { x: -2400, y: -150, width: 1400, height: 900 };
    expect(placeWindow(saved(onLeft), [leftMonitor, laptop], laptop, WINDOW_DEFAULTS).bounds).toEqual(onLeft);
  });

  it('moves a window whose monitor was unplugged onto the primary display, centred', () => {
    const onRight = { x: 2200, y: 100, width: 1600, height: 1000 };
    expect(placeWindow(saved(onRight), [laptop], laptop, WINDOW_DEFAULTS).bounds).toEqual({ x: 160, y: 20, width: 1600, height: 1000 });
    const onLeft = { x: -2400, y: -150, width: 1400, height: 900 };
    expect(placeWindow(saved(onLeft), [laptop], laptop, WINDOW_DEFAULTS).bounds).toEqual({ x: 260, y: 70, width: 1400, height: 900 });
  });

  it('shrinks a window larger than the display after the resolution went down, and keeps it whole on screen', () => {
    const big = { x: 100, y: 50, width: 2400, height: 1300 };
    const small = display(0, 0, 1366, 728);
    expect(placeWindow(saved(big), [small], small, WINDOW_DEFAULTS).bounds).toEqual({ x: 0, y: 0, width: 1366, height: 728 });
  });

  it('nudges a mostly visible window fully onto its display instead of recentring it', () => {
    const hanging = { x: 1000, y: -30, width: 1200, height: 800 }; // title bar above the screen, right edge off it
    expect(placeWindow(saved(hanging), [laptop], laptop, WINDOW_DEFAULTS).bounds).toEqual({ x: 720, y: 0, width: 1200, height: 800 });
  });

  it('treats a window barely peeking onto a display as lost', () => {
    const peeking = { x: 1800, y: 100, width: 1200, height: 800 }; // 120 px of 1200 on the laptop, the rest on a removed monitor
    expect(placeWindow(saved(peeking), [laptop], laptop, WINDOW_DEFAULTS).bounds).toEqual({ x: 360, y: 120, width: 1200, height: 800 });
  });

  it('keeps the maximized state and never goes below the minimum size', () => {
    const tiny = { x: 10, y: 10, width: 200, height: 100 };
    expect(placeWindow(saved(tiny, true), [laptop], laptop, WINDOW_DEFAULTS)).toEqual({ bounds: { x: 10, y: 10, width: 800, height: 560 }, maximized: true });
  });
});

describe('window-state.json', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'cd-winstate-'));
    dirs.push(d);
    return d;
  };

  it('round-trips and replaces the file atomically (no temp file left behind)', () => {
    const dir = tmp();
    const file = join(dir, WINDOW_STATE_FILE);
    writeWindowState(file, saved({ x: -100, y: 5, width: 900, height: 700 }, true));
    writeWindowState(file, saved({ x: 1, y: 2, width: 1000, height: 800 }));
    expect(readWindowState(file, createLogger(() => {}))).toEqual(saved({ x: 1, y: 2, width: 1000, height: 800 }));
    expect(readdirSync(dir)).toEqual([WINDOW_STATE_FILE]);
  });

  it('falls back to the default for a missing, damaged or wrongly shaped file, saying so in the log', () => {
    const dir = tmp();
    const file = join(dir, WINDOW_STATE_FILE);
    const lines: string[] = [];
    const log = createLogger((l) => lines.push(l));
    expect(readWindowState(file, log)).toBeNull();
    expect(lines).toEqual([]); // a first start is not worth a warning
    writeFileSync(file, '{"bounds":{"x":1,');
    expect(readWindowState(file, log)).toBeNull();
    writeFileSync(file, JSON.stringify({ bounds: { x: 0, y: 0, width: -5, height: 10 }, maximized: false }));
    expect(readWindowState(file, log)).toBeNull();
    expect(lines.filter((l) => l.includes('saved window position is damaged'))).toHaveLength(2);
  });

  it('saves a moment after moves settle and at once on close', async () => {
    const dir = tmp();
    const listeners = new Map<string, () => void>();
    let bounds: Rect = { x: 0, y: 0, width: 1000, height: 700 };
    const win = { getNormalBounds: () => bounds, isMaximized: () => false, on: (e: string, fn: () => void) => listeners.set(e, fn) };
    trackWindowState(win, dir, createLogger(() => {}));
    const file = join(dir, WINDOW_STATE_FILE);
    for (let i = 0; i < 20; i++) {
      bounds = { ...bounds, x: i * 10 };
      listeners.get('move')!();
    }
    expect(() => readFileSync(file)).toThrow(); // still dragging: nothing written yet
    await new Promise((r) => setTimeout(r, 600));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(saved({ x: 190, y: 0, width: 1000, height: 700 }));
    bounds = { ...bounds, width: 1100 };
    listeners.get('resize')!();
    listeners.get('close')!();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(saved({ x: 190, y: 0, width: 1100, height: 700 }));
  });
});
