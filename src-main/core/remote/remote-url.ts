import type { Settings } from '../contract/contract.js';

export const PLATFORM_REMOTE_MGMT_URL = 'wss://remote-mgmt.edgeimpulse.com';
const PLATFORM_HOST = /(^|\.)edgeimpulse\.com$/i;

/**
 * The remote-management URL in effect: the one set, else derived from the ingestion URL. The
 * platform's own installation is wss://remote-mgmt.edgeimpulse.com; a self-hosted or test one on
 * another host serves it on port 4802 of the ingestion host (the spec's "Where"), over wss when
 * ingestion is https.
 */
export function remoteMgmtUrl(s: Pick<Settings, 'ingestionUrl' | 'remoteMgmtUrl'>): string {
  if (s.remoteMgmtUrl) return s.remoteMgmtUrl;
  let u: URL;
  try {
    u = new URL(s.ingestionUrl);
  } catch {
    return PLATFORM_REMOTE_MGMT_URL;
  }
  if (PLATFORM_HOST.test(u.hostname)) return PLATFORM_REMOTE_MGMT_URL;
  return `${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.hostname}:4802`;
}
