// The paths our server answers besides the telemetry path (docs/operations.md, Endpoints).
// server/routes.ts dispatches on each row's route, server/web-server.ts lets the open ones through
// without credentials, and config/addresses.ts refuses a telemetry path that is one of them: a new
// fixed path is one row here. Plain data at the top of src/ with no imports, below both folders, so
// that the configuration reads it without importing server/ (which imports config/).

/** What answers a fixed path: routes.ts has one case for each. */
export type FixedRoute = 'landing-page' | 'healthy' | 'ready' | 'reload';

/** One fixed path: what answers it, and whether without credentials. */
export interface FixedPath {
  readonly route: FixedRoute;
  /** Answered without basic auth: the probes say only up or not (docs/security.md). */
  readonly open: boolean;
}

/** Every fixed path, in the order the configuration's error message lists them. */
export const FIXED_PATHS: ReadonlyMap<string, FixedPath> = new Map<string, FixedPath>([
  ['/', { route: 'landing-page', open: false }],
  // The probes, under our names and Prometheus's.
  ['/healthz', { route: 'healthy', open: true }],
  ['/readyz', { route: 'ready', open: true }],
  ['/-/healthy', { route: 'healthy', open: true }],
  ['/-/ready', { route: 'ready', open: true }],
  // Prometheus's lifecycle endpoint (docs/operations.md, Reloading the configuration).
  ['/-/reload', { route: 'reload', open: false }],
]);
