import { LARGE_STEP_MS, SMALL_STEP_MS } from '../review/window-keys.js';

/**
 * What a key press means on the live view. One table for the capture panel and the shortcut
 * sheet, so the sheet cannot drift from what the keys do.
 *
 * Digits are "one key away" for both jobs, which never happen at the same time: before recording
 * they pick one of the recent labels; while recording they start the named event with that
 * number (pressing the open event's digit again, or 0, ends it). Only named events: a digit
 * beyond the names typed on the live view marks nothing.
 */
export type CaptureAction =
  | { kind: 'toggle-record' }
  | { kind: 'cancel-countdown' }
  | { kind: 'pick-label'; index: number }
  | { kind: 'start-event'; index: number }
  | { kind: 'end-event' }
  | null;

export interface CaptureKeyState {
  recording: boolean;
  countingDown: boolean;
  /** Index (0-based) of the open event's name, if an event is open. */
  openEvent: number | null;
  /** How many event names are set: a digit with no name marks nothing (and stays a plain key press). */
  eventCount: number;
}

export interface KeyLike {
  code: string;
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  repeat: boolean;
  target: EventTarget | null;
  /** An input method is still composing: its Enter picks the characters, it does not send anything. */
  isComposing?: boolean;
}

/** Keys typed into a field (or toggling a focused checkbox) belong to it, not to the shortcuts. */
export function isTyping(target: EventTarget | null): boolean {
  // Duck-typed so this file also runs (and is tested) outside a browser.
  const el = target as { tagName?: unknown; isContentEditable?: unknown } | null;
  return !!el && (['INPUT', 'TEXTAREA', 'SELECT'].includes(String(el.tagName)) || el.isContentEditable === true);
}

/**
 * The capture panel's Label and Length fields (marked `data-record-on-enter`): Enter there starts
 * the take, as Enter sends a form. Space cannot, since a label may hold spaces, and a person who
 * typed a label and a length and then pressed Space, as the first steps say, saw nothing happen.
 */
function isRecordField(target: EventTarget | null): boolean {
  const el = target as { dataset?: Record<string, string | undefined> } | null;
  return el?.dataset?.recordOnEnter !== undefined;
}

/** Controls whose own key Space is: it presses a button, ticks a switch, picks in a list. */
const SPACE_ROLES = new Set(['button', 'switch', 'checkbox', 'radio', 'tab', 'option', 'listbox', 'menuitem', 'link']);

/**
 * A control reached with the keyboard (Tab, shown by :focus-visible) keeps Space: a person who
 * tabbed to "Keep watching" or "+ Add key" and pressed Space got a take recorded (and queued)
 * instead of the button pressed. One clicked with the mouse keeps the focus too, but not
 * :focus-visible: there Space stays the record key, as people who clicked a chip and then pressed
 * Space expect.
 */
function ownsSpace(target: EventTarget | null): boolean {
  // Duck-typed, as isTyping.
  const el = target as { tagName?: unknown; getAttribute?: (name: string) => string | null; matches?: (selector: string) => boolean } | null;
  if (!el) return false;
  const role = el.getAttribute?.('role') ?? null;
  const control = ['BUTTON', 'A', 'SUMMARY'].includes(String(el.tagName)) || (role !== null && SPACE_ROLES.has(role));
  return control && el.matches?.(':focus-visible') === true;
}

export function captureAction(e: KeyLike, s: CaptureKeyState): CaptureAction {
  if (e.ctrlKey || e.altKey || e.metaKey || e.repeat) return null;
  if (e.key === 'Enter' && !e.isComposing && !s.recording && !s.countingDown && isRecordField(e.target)) return { kind: 'toggle-record' };
  if (isTyping(e.target)) return null;
  if (e.code === 'Space') return ownsSpace(e.target) ? null : { kind: 'toggle-record' };
  if (e.key === 'Escape' && s.countingDown) return { kind: 'cancel-countdown' };
  // e.code, not e.key: the digit row is the same place on every layout (AZERTY types "&" for 1).
  const digit = /^(?:Digit|Numpad)([0-9])$/.exec(e.code)?.[1];
  if (digit === undefined) return null;
  const n = Number(digit);
  if (s.recording) {
    if (n === 0 || n - 1 === s.openEvent) return s.openEvent === null ? null : { kind: 'end-event' };
    return n <= s.eventCount ? { kind: 'start-event', index: n - 1 } : null;
  }
  return n === 0 || s.countingDown ? null : { kind: 'pick-label', index: n - 1 };
}

/** The shortcut sheet's content, grouped by where the keys work. */
export const SHORTCUTS: ReadonlyArray<{ group: string; keys: ReadonlyArray<{ keys: string; what: string }> }> = [
  {
    group: 'Anywhere',
    keys: [
      { keys: 'Alt+1 / Alt+2 / Alt+3', what: 'Live / Samples / Settings tab' },
      { keys: '?', what: 'This list of shortcuts' },
      { keys: 'F1', what: 'The manual' },
      { keys: 'Esc', what: 'Close a dialog' },
    ],
  },
  {
    group: 'Live view',
    keys: [
      { keys: 'Space', what: 'Start / stop recording' },
      { keys: 'Enter (in Label or Length)', what: 'Start recording' },
      { keys: '1 … 9 (not recording)', what: 'Use recent label 1 … 9' },
      { keys: '1 … 9 (recording)', what: 'Start event 1 … 9 (ends the open one); only events named on the live view' },
      { keys: '0, or the open event’s digit', what: 'End the open event' },
      { keys: 'Esc (counting down)', what: 'Cancel the countdown' },
      { keys: 'R', what: 'Rescan devices' },
      { keys: '↑ ↓ Home End, Enter', what: 'Move in the device list, open a device' },
    ],
  },
  {
    group: 'Samples',
    keys: [
      { keys: '/', what: 'Search samples (Esc in the box clears it)' },
      { keys: 'Ctrl+A', what: 'Select all samples' },
      { keys: 'Shift+click', what: 'Select a range' },
      { keys: 'Esc', what: 'Clear the selection' },
      { keys: 'Enter, or double-click a row', what: 'Open the sample view' },
    ],
  },
  {
    group: 'Sample view',
    keys: [
      { keys: '+ / − / 0, mouse wheel', what: 'Zoom in / out / whole sample' },
      { keys: '← →', what: 'Pan' },
      { keys: 'Shift+← →, or drag', what: 'Select a range' },
      { keys: 'C', what: 'Crop to the selection (a new sample)' },
      { keys: 'S', what: 'Split into windows (new samples)' },
      { keys: 'Space', what: 'Play / pause audio' },
      { keys: 'Esc', what: 'Clear the selection, then close' },
    ],
  },
  {
    group: 'Split, detected windows on the plot',
    keys: [
      { keys: 'Tab / Shift+Tab', what: 'Next / previous window along the time axis' },
      { keys: '← →', what: `Move the window by ${SMALL_STEP_MS} ms` },
      { keys: 'Shift+← →', what: `Move the window by ${LARGE_STEP_MS} ms` },
      { keys: 'Delete / Backspace', what: 'Remove the window' },
      { keys: 'Space / Enter', what: 'Play the window (audio)' },
    ],
  },
];
