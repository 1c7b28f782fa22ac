import { CoreError } from '../../errors.js';
import { MAX_WINDOWS, type RowWindow } from '../windows.js';
import { activity, type Activity, type ActivityInput } from './activity.js';
import { findEvents, type FoundEvent } from './events.js';
import { noiseFloor, typicalFloor, type NoiseFloor } from './floor.js';

export interface DetectOptions {
  /** Length of every window (default DEFAULT_WINDOW_MS). */
  windowMs?: number;
  /** Amplitude ratio over the measured noise floor that counts as an event (default 4, ≈ 12 dB). */
  threshold?: number;
  /** Events closer than this become one (default 250 ms). */
  minGapMs?: number;
  /** Shorter events are ignored (default 40 ms): clicks and one-reading glitches. */
  minEventMs?: number;
  /** Windows that would run past the sample's ends are shifted inside (true) or dropped (false, default). */
  keepEdges?: boolean;
}

export const DEFAULT_WINDOW_MS = 1000;
export const DETECT_DEFAULTS = { threshold: 4, minGapMs: 250, minEventMs: 40, keepEdges: false } as const;

/** Floor blocks of one second, the floor being their median within four seconds either side. */
const BLOCK_MS = 1000;
const SPAN_BLOCKS = 4;
/** −70 dBFS: digital silence must not make every rounding error an event. */
const MIN_AUDIO_POWER = 1e-7;
/** Sensor power is in units of each axis's own noise, so ≈ 1 is typical background. */
const MIN_SENSOR_POWER = 1e-6;

export interface DetectedWindow extends RowWindow {
  /** The event the window is centred on. */
  event: { from: number; to: number; peakRatio: number };
  /** It would have run past an end and was moved inside. */
  shifted: boolean;
}

export interface Detection {
  windows: DetectedWindow[];
  /** Events whose window ran past an end and were left out (keepEdges off). */
  droppedAtEdges: number;
  /** The floor's typical power (audio: full scale = 1; sensor: in units of the axes' noise). */
  floorPower: number;
  windowRows: number;
}

/** The part worth keeping between two detections of one sample with other thresholds. */
export interface Analysis {
  activity: Activity;
  floor: NoiseFloor;
}

export function analyse(d: ActivityInput): Analysis {
  const a = activity(d);
  const frameMs = a.frameRows * a.intervalMs;
  const framesPerBlock = Math.max(1, Math.round(BLOCK_MS / frameMs));
  return { activity: a, floor: noiseFloor(a.power, framesPerBlock, SPAN_BLOCKS, d.kind === 'audio' ? MIN_AUDIO_POWER : MIN_SENSOR_POWER) };
}

export function detectEvents(d: ActivityInput, o: DetectOptions = {}): Detection {
  return detectIn(analyse(d), o);
}

/** One window of the chosen length per event, centred on the event's energy centre. */
export function detectIn(an: Analysis, o: DetectOptions = {}): Detection {
  const { rows, intervalMs } = an.activity;
  const windowMs = o.windowMs ?? DEFAULT_WINDOW_MS;
  const threshold = o.threshold ?? DETECT_DEFAULTS.threshold;
  if (!(threshold > 1)) throw new CoreError('InvalidArguments', `The threshold is a ratio over the noise floor and must be above 1; got ${threshold}.`);
  const len = Math.round(windowMs / intervalMs);
  if (len < 1) throw new CoreError('InvalidArguments', `A window of ${windowMs} ms is shorter than one row (${intervalMs} ms).`);
  if (len > rows) throw new CoreError('InvalidArguments', `The sample is ${Math.round(rows * intervalMs)} ms long, shorter than one window of ${windowMs} ms; choose a shorter window.`);
  const events = findEvents(an.activity, an.floor, {
    threshold,
    minGapMs: o.minGapMs ?? DETECT_DEFAULTS.minGapMs,
    minEventMs: o.minEventMs ?? DETECT_DEFAULTS.minEventMs,
  });
  const windows: DetectedWindow[] = [];
  let droppedAtEdges = 0;
  for (const ev of events) {
    const w = windowAround(ev, len, rows, o.keepEdges ?? DETECT_DEFAULTS.keepEdges);
    if (w) windows.push(w);
    else droppedAtEdges++;
  }
  if (windows.length > MAX_WINDOWS) throw new CoreError('InvalidArguments', `That finds ${windows.length} events; at most ${MAX_WINDOWS} per split. Raise the threshold or the minimum gap.`);
  return { windows, droppedAtEdges, floorPower: typicalFloor(an.floor), windowRows: len };
}

function windowAround(ev: FoundEvent, len: number, rows: number, keepEdges: boolean): DetectedWindow | null {
  const from = Math.round(ev.centre - len / 2);
  const event = { from: ev.from, to: ev.to, peakRatio: ev.peakRatio };
  if (from >= 0 && from + len <= rows) return { from, to: from + len, event, shifted: false };
  if (!keepEdges) return null;
  // Shifted inside, never padded: a window holds only what was recorded.
  const inside = Math.min(rows - len, Math.max(0, from));
  return { from: inside, to: inside + len, event, shifted: true };
}

/** What a person is told when nothing was found. */
export const NO_EVENTS = 'no events found above the noise floor; lower the threshold';

export function noEventsError(det: Detection): CoreError {
  const edges = det.droppedAtEdges ? ` (${det.droppedAtEdges} found too close to an end for a whole window; allow windows at the ends to keep them)` : '';
  return new CoreError('InvalidArguments', det.droppedAtEdges ? `no whole windows fit around the events found${edges}` : NO_EVENTS);
}
