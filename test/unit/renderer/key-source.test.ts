import { describe, expect, it } from 'vitest';
import { wsUrlFor } from '../../../src-renderer/lib/api/ws-url.js';
import { keySourceText } from '../../../src-renderer/lib/key-source.js';

describe('where a key comes from, as Settings says it', () => {
  it('names the variable, flag or file of a key held in memory, and says it is not stored', () => {
    expect(keySourceText({ from: 'environment', name: 'CAPTURE_DESK_API_KEY', stored: false }, 'set')).toBe(
      'From the environment (CAPTURE_DESK_API_KEY), not stored: held in memory until serve stops.',
    );
    expect(keySourceText({ from: 'file', name: '/etc/capture-desk/api-key', stored: false }, 'set')).toContain('From the file /etc/capture-desk/api-key, not stored');
    expect(keySourceText({ from: 'flag', name: '--hmac-key', stored: false }, 'set')).toContain('From the command line (--hmac-key), not stored');
    expect(keySourceText({ from: 'session', name: null, stored: false }, 'set')).toContain('for this session only, not stored');
    expect(keySourceText({ from: 'session', name: null, stored: false }, 'not set')).toContain('Cleared for this session');
  });

  it('says the keychain for a stored key, and when it cannot be used', () => {
    const keychain = { from: 'keychain', name: null, stored: true } as const;
    expect(keySourceText(keychain, 'set')).toBe('Stored in the system keychain.');
    expect(keySourceText(keychain, 'not set')).toBe('Saving stores it in the system keychain.');
    expect(keySourceText(keychain, 'unknown')).toContain('cannot be used now');
  });
});

describe('the browser shell WebSocket URL', () => {
  it('sits beside the page, over WSS when the page came over HTTPS, without hash or query', () => {
    expect(wsUrlFor('https://station.local:8765/app/#settings')).toBe('wss://station.local:8765/app/ws');
    expect(wsUrlFor('http://127.0.0.1:8765/app/?x=1#live')).toBe('ws://127.0.0.1:8765/app/ws');
    expect(wsUrlFor('http://[::1]:8765/app/index.html')).toBe('ws://[::1]:8765/app/ws');
  });
});
