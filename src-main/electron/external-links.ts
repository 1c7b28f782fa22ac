/**
 * Links the app may hand to the system browser. Everything else is refused: a compromised page
 * must not be able to launch arbitrary URLs or schemes (file:, smb:, custom protocol handlers).
 */
const ALLOWED_HOSTS = new Set(['docs.edgeimpulse.com', 'studio.edgeimpulse.com', 'forum.edgeimpulse.com', 'github.com']);

export function isAllowedExternalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '' && ALLOWED_HOSTS.has(url.hostname);
}
