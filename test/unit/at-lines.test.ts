import { describe, expect, it } from 'vitest';
import { LineSplitter, stripAnsi } from '../../src-main/core/serial/at/at-lines.js';

/** Feeds `text` cut at the given positions; returns the lines and whether the tail is a prompt. */
function feed(text: string, cuts: number[]) {
  const s = new LineSplitter();
  const lines: string[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    lines.push(...s.push(text.slice(from, cut)));
    from = cut;
  }
  return { lines, prompt: s.tailIsPrompt() };
}

describe('LineSplitter', () => {
  // Echo with \r\n, a \n-only line, an ANSI-cleared prompt redraw with a lone \r, then the prompt.
  const text = 'AT+CONFIG?\r\nID:         5A:1B\nAT Version: 1.3.0\r\n\x1b[2K\rLabel: idle\r\n\r\n> ';
  const expected = ['AT+CONFIG?', 'ID:         5A:1B', 'AT Version: 1.3.0', '', 'Label: idle', ''];

  it('gives the same lines and prompt wherever the chunks are cut', () => {
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b += 3) {
        const got = feed(text, [a, b]);
        expect(got, `cut at ${a} and ${b}`).toEqual({ lines: expected, prompt: true });
      }
    }
  });

  it('feeds byte by byte', () => {
    expect(feed(text, Array.from({ length: text.length }, (_, i) => i))).toEqual({ lines: expected, prompt: true });
  });

  it('waits for the byte after a trailing \\r before ending the line', () => {
    const s = new LineSplitter();
    expect(s.push('OK\r')).toEqual([]);
    expect(s.push('\n')).toEqual(['OK']);
    expect(s.push('next\r')).toEqual([]);
    expect(s.push('> ')).toEqual(['next']);
    expect(s.tailIsPrompt()).toBe(true);
  });

  it('does not take "> " inside or after other text for the prompt', () => {
    const s = new LineSplitter();
    s.push('a -> b');
    expect(s.tailIsPrompt()).toBe(false);
    s.push('\r\n>');
    expect(s.tailIsPrompt()).toBe(false);
    s.push(' ');
    expect(s.tailIsPrompt()).toBe(true);
  });

  it('sees a prompt drawn after ANSI codes', () => {
    const s = new LineSplitter();
    s.push('\x1b[2K');
    expect(s.tailIsPrompt()).toBe(false);
    s.push('\x1b[u> ');
    expect(s.tailIsPrompt()).toBe(true);
  });

  it('handles a long unterminated line in many chunks without losing bytes', () => {
    const data = Buffer.alloc(300_000, 7).toString('base64');
    const s = new LineSplitter();
    for (let i = 0; i < data.length; i += 4093) expect(s.push(data.slice(i, i + 4093))).toEqual([]);
    expect(s.tailIsPrompt()).toBe(false);
    expect(s.push('\r\n')).toEqual([data]);
  });

  it('reset() forgets a partial line', () => {
    const s = new LineSplitter();
    s.push('stale> \r');
    s.reset();
    expect(s.push('fresh\n')).toEqual(['fresh']);
  });
});

describe('stripAnsi', () => {
  it('removes the codes the firmware uses for its line editor', () => {
    expect(stripAnsi('\x1b[s\x1b[u\x1b[2K\r> AT+X\x1b[12G')).toBe('\r> AT+X');
    expect(stripAnsi('plain')).toBe('plain');
  });
});
