import { randomFillSync } from 'node:crypto';

/** 16 random bytes per id, drawn a few hundred ids at a time (one call into the CSPRNG, not one per id). */
const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let used = POOL_IDS;
let lastMs = 0;

/**
 * A new sample id: a UUID version 7 (RFC 9562), the creation time in milliseconds followed by 74
 * random bits. Ids made later sort later, so a bulk import appends its ids at the end of the index
 * on samples.id instead of scattering them over every page of it: random v4 ids made each chunk's
 * commit rewrite nearly the whole index (a 10,000-file upload wrote a 31 MB journal for a 6.5 MB
 * index). It is still a UUID in the usual text form, so ids already in an index stay valid beside them.
 */
export function newSampleId(now = Date.now()): string {
  if (used === POOL_IDS) {
    randomFillSync(pool);
    used = 0;
  }
  const b = pool.subarray(16 * used, 16 * ++used);
  // A clock stepped back (NTP) never makes an id sort before one already handed out.
  const ms = Math.max(now, lastMs);
  lastMs = ms;
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f); // version 7
  b[8] = 0x80 | (b[8]! & 0x3f); // RFC 9562 variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
