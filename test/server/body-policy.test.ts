import { describe, expect, it } from 'vitest';
import { keptWarm, mustRebuild, recentBuilds, REBUILD_WINDOW_MS } from '../../src/server/metrics-endpoint.js';

const now = 1_700_000_000_000;
const body = { versions: [1, 2], generation: 3, builds: [now - 1500, now - 400, now - 100] };
const asked = { versions: [1, 2], generation: 3, now, burst: 2, refreshing: false };

describe('mustRebuild', () => {
  it('builds a body never built, and one built before a reload whatever the burst bound', () => {
    expect(mustRebuild(undefined, asked)).toBe(true);
    expect(mustRebuild(body, { ...asked, generation: 4, burst: 0 })).toBe(true);
  });

  it('answers a body whose sections have not moved as it is, refresh or not', () => {
    expect(mustRebuild(body, asked)).toBe(false);
    expect(mustRebuild(body, { ...asked, refreshing: true })).toBe(false);
  });

  it('rebuilds a moved body for a scrape only within the burst bound, and always for a refresh', () => {
    const moved = { ...asked, versions: [1, 3] };
    // Two builds within the window already: the bound of 2 is reached.
    expect(mustRebuild(body, moved)).toBe(false);
    expect(mustRebuild(body, { ...moved, burst: 3 })).toBe(true);
    expect(mustRebuild(body, { ...moved, refreshing: true })).toBe(true);
    // A second later the builds have left the window.
    expect(mustRebuild(body, { ...moved, now: now + REBUILD_WINDOW_MS })).toBe(true);
  });
});

describe('recentBuilds and keptWarm', () => {
  it('counts the builds of the last window only, and keeps warm what was asked for within five seconds', () => {
    expect(recentBuilds(body, now)).toEqual([now - 400, now - 100]);
    expect(recentBuilds(undefined, now)).toEqual([]);
    expect(keptWarm(now - 5_000, now)).toBe(true);
    expect(keptWarm(now - 5_001, now)).toBe(false);
  });
});
