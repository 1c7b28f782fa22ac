/**
 * The browser shell's WebSocket for a page at `pageUrl`: `ws` in the page's folder, over WSS when
 * the page came over HTTPS. Signed in, the page is at /app/ and the session cookie goes along with
 * the upgrade; the token is in no URL.
 */
export function wsUrlFor(pageUrl: string): string {
  const url = new URL('ws', pageUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  url.hash = '';
  return url.href;
}
