import { describe, it, expect } from 'vitest';
import { captureAction, type KeyLike } from '../../../src-renderer/lib/capture/capture-keys.js';

const key = (code: string, more: Partial<KeyLike> = {}): KeyLike => ({ code, key: code.replace(/^Digit/, ''), ctrlKey: false, altKey: false, metaKey: false, repeat: false, target: null, ...more });
const idle = { recording: false, countingDown: false, openEvent: null, eventCount: 9 };
const rec = { recording: true, countingDown: false, openEvent: null, eventCount: 9 };

describe('capture keys', () => {
  it('Space toggles recording; held keys and modifiers do nothing', () => {
    expect(captureAction(key('Space'), idle)).toEqual({ kind: 'toggle-record' });
    expect(captureAction(key('Space', { repeat: true }), idle)).toBeNull();
    expect(captureAction(key('Digit1', { altKey: true }), idle)).toBeNull(); // Alt+1 switches tabs
    expect(captureAction(key('Digit1', { ctrlKey: true }), rec)).toBeNull();
    expect(captureAction(key('Space', { target: { tagName: 'INPUT' } as unknown as EventTarget }), idle)).toBeNull(); // typing a label
  });

  it('Enter in the Label or Length field starts the take (Space there types a space); not in other fields, nor while a take runs', () => {
    const recordField = { tagName: 'INPUT', dataset: { recordOnEnter: '' } } as unknown as EventTarget;
    const otherField = { tagName: 'INPUT', dataset: {} } as unknown as EventTarget;
    expect(captureAction(key('Enter', { key: 'Enter', target: recordField }), idle)).toEqual({ kind: 'toggle-record' });
    expect(captureAction(key('Space', { key: ' ', target: recordField }), idle)).toBeNull();
    expect(captureAction(key('Enter', { key: 'Enter', target: otherField }), idle)).toBeNull();
    expect(captureAction(key('Enter', { key: 'Enter', target: recordField, isComposing: true }), idle)).toBeNull();
    expect(captureAction(key('Enter', { key: 'Enter', target: recordField }), rec)).toBeNull();
    expect(captureAction(key('Enter', { key: 'Enter', target: recordField }), { ...idle, countingDown: true })).toBeNull();
  });

  it('Space on a control reached with the keyboard is that control\'s (it presses the button); clicked with the mouse, Space still records', () => {
    const control = (tagName: string, focusVisible: boolean, role: string | null = null) =>
      ({ tagName, getAttribute: (n: string) => (n === 'role' ? role : null), matches: (sel: string) => sel === ':focus-visible' && focusVisible }) as unknown as EventTarget;
    expect(captureAction(key('Space', { key: ' ', target: control('BUTTON', true) }), idle)).toBeNull();
    expect(captureAction(key('Space', { key: ' ', target: control('UL', true, 'listbox') }), idle)).toBeNull();
    expect(captureAction(key('Space', { key: ' ', target: control('DIV', true, 'switch') }), rec)).toBeNull();
    expect(captureAction(key('Space', { key: ' ', target: control('BUTTON', false) }), idle)).toEqual({ kind: 'toggle-record' });
    expect(captureAction(key('Space', { key: ' ', target: control('DIV', true) }), idle)).toEqual({ kind: 'toggle-record' }); // not a control
  });

  it('digits pick a recent label before recording and mark events while recording', () => {
    expect(captureAction(key('Digit3'), idle)).toEqual({ kind: 'pick-label', index: 2 });
    expect(captureAction(key('Numpad2'), idle)).toEqual({ kind: 'pick-label', index: 1 });
    expect(captureAction(key('Digit0'), idle)).toBeNull();
    expect(captureAction(key('Digit3'), rec)).toEqual({ kind: 'start-event', index: 2 });
    expect(captureAction(key('Digit0'), rec)).toBeNull(); // nothing open to end
  });

  it('0 or the open event’s own digit ends it; another digit starts the next one', () => {
    const open = { recording: true, countingDown: false, openEvent: 1, eventCount: 9 };
    expect(captureAction(key('Digit0'), open)).toEqual({ kind: 'end-event' });
    expect(captureAction(key('Digit2'), open)).toEqual({ kind: 'end-event' });
    expect(captureAction(key('Digit1'), open)).toEqual({ kind: 'start-event', index: 0 });
  });

  it('a digit with no event name marks nothing while recording (no events named: digits do nothing)', () => {
    expect(captureAction(key('Digit1'), { ...rec, eventCount: 0 })).toBeNull();
    expect(captureAction(key('Digit2'), { ...rec, eventCount: 1 })).toBeNull();
    expect(captureAction(key('Digit1'), { ...rec, eventCount: 1 })).toEqual({ kind: 'start-event', index: 0 });
    // An open event still ends with 0 or its digit.
    expect(captureAction(key('Digit0'), { ...rec, openEvent: 0, eventCount: 1 })).toEqual({ kind: 'end-event' });
  });

  it('Escape cancels a countdown, and digits do not change the label during one', () => {
    const counting = { recording: false, countingDown: true, openEvent: null, eventCount: 9 };
    expect(captureAction({ ...key('Escape'), key: 'Escape' }, counting)).toEqual({ kind: 'cancel-countdown' });
    expect(captureAction({ ...key('Escape'), key: 'Escape' }, idle)).toBeNull();
    expect(captureAction(key('Digit1'), counting)).toBeNull();
  });
});
