// When a cached /metrics body is answered as it is and when it is rebuilt (docs/operations.md,
// Behaviour: never rendered per scrape, a second behind at most): pure decisions over a body's
// state, so that the scrape cache only keeps state and builds.

/**
 * A body is rebuilt ahead of scrapes only while it is asked for at least this often: a scraper
 * polling back to back, whose tail latency a rebuild on its path would make. Prometheus, every 15 s
 * or more, pays one rebuild per scrape at most, which costs less than rebuilding every second for it.
 */
export const KEEP_WARM_MS = 5_000;

/** The window over which a body's rebuilds are counted against the burst bound. */
export const REBUILD_WINDOW_MS = 1_000;

/** What a body's latest build shows, and how often it was built lately. */
export interface BodyState {
  /** The sections' versions the latest build renders. */
  readonly versions: readonly number[];
  /** The reload generation the latest build renders. */
  readonly generation: number;
  /** When its recent builds started (ms since the epoch), oldest first. */
  readonly builds: readonly number[];
}

/** What is asked for now. */
export interface Asked {
  readonly versions: readonly number[];
  readonly generation: number;
  readonly now: number;
  /** Rebuilds per {@link REBUILD_WINDOW_MS} a scrape may cause. */
  readonly burst: number;
  /** A rebuild ahead of the scrapes (keep-warm.ts), which the burst bound does not hold back. */
  readonly refreshing: boolean;
}

/**
 * Whether the body must be built anew: never built, built before a reload (the next scrape shows a
 * reload whatever the bound), or its sections moved and this is a refresh or a scrape within the
 * burst bound. Beyond the bound a scrape is answered the body as it is, and the next refresh
 * rebuilds it.
 */
export function mustRebuild(body: BodyState | undefined, asked: Asked): boolean {
  if (body?.generation !== asked.generation) return true;
  if (sameVersions(body.versions, asked.versions)) return false;
  return asked.refreshing || recentBuilds(body, asked.now).length < asked.burst;
}

/** The builds of `body` within the window before `now`, oldest first. */
export function recentBuilds(body: BodyState | undefined, now: number): number[] {
  return body?.builds.filter((at) => now - at < REBUILD_WINDOW_MS) ?? [];
}

/** Whether a body last asked for at `lastAsked` is rebuilt ahead of the scrapes at `now`. */
export function keptWarm(lastAsked: number, now: number): boolean {
  return now - lastAsked <= KEEP_WARM_MS;
}

function sameVersions(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((version, index) => version === b[index]);
}
