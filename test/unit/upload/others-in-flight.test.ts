import { describe, expect, it } from 'vitest';
import { requestTimeoutMs } from '../../../src-main/core/upload/ingestion-client.js';
import { OthersInFlight } from '../../../src-main/core/upload/others-in-flight.js';

describe('OthersInFlight', () => {
  it('gives up on another process\'s samples only once they stood still longer than their request could take', () => {
    let now = 0;
    const w = new OthersInFlight(() => now, 5_000);
    const seen = { mark: '2:3', bytes: 1_000_000 };
    const bound = requestTimeoutMs(seen.bytes) + 5_000; // 45 s for 1 MB
    expect(w.stuck(seen)).toBe(false);
    now = bound;
    expect(w.stuck(seen)).toBe(false);
    // The other process settled one and claimed another: a live process, the clock starts again.
    now = bound + 1;
    expect(w.stuck({ mark: '2:7', bytes: 1_000_000 })).toBe(false);
    now += bound;
    expect(w.stuck({ mark: '2:7', bytes: 1_000_000 })).toBe(false);
    now += 1;
    expect(w.stuck({ mark: '2:7', bytes: 1_000_000 })).toBe(true);
    // Nothing in flight any more, then a new claim: waited for afresh.
    expect(w.stuck(null)).toBe(false);
    expect(w.stuck(seen)).toBe(false);
  });
});
