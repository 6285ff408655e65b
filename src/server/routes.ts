import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { problemLines, type ConfigProblem } from '../config/errors.js';
import type { Format } from '../metrics/exposition.js';
import { FIXED_PATHS, type FixedRoute } from '../fixed-paths.js';
import { landingPage, landingPageCsp, pageView, type Readiness, type SourceRow } from './landing-page.js';
import { acceptsGzip, CONTENT_TYPES, negotiateFormat, type Encoding } from './metrics-endpoint.js';

/** How a reload ended, as `POST /-/reload` answers it. */
export type ReloadOutcome =
  | { readonly result: 'applied' }
  /** The new configuration does not validate; the running one is kept. */
  | { readonly result: 'invalid'; readonly problems: readonly ConfigProblem[] }
  /** Applying it threw (logged). */
  | { readonly result: 'failed' }
  /** The exporter is stopping: nothing was read. */
  | { readonly result: 'stopping' };

/** What the HTTP server serves; it never reaches Upstash itself. */
interface ServerOptions {
  /** The /metrics body, already encoded (cached bytes: a scrape must not render or compress). */
  readonly exposition: (format: Format, encoding: Encoding) => Promise<readonly Buffer[]>;
  /** Whether the exporter is ready, and why not (in words for /readyz and the landing page). */
  readonly readiness: () => Readiness;
  readonly sources: () => readonly SourceRow[];
  readonly version: string;
  /** Where the metrics are served (`--web.telemetry-path`, checked at start: not another route). */
  readonly telemetryPath: string;
  /** The git commit the program was built from, as src/version.ts reads it. */
  readonly revision: string;
  /** Which shard this is, e.g. `0 of 1`, for the landing page. */
  readonly shard: string;
  /** Whether `POST /-/reload` may reload (`--web.enable-lifecycle`), as the running configuration says. */
  readonly lifecycle: () => boolean;
  /** Reloads the configuration as SIGHUP does; settles once it is applied or refused. */
  readonly reload: () => Promise<ReloadOutcome>;
  readonly logger: Logger;
}

/** The routes of our own HTTP endpoint, as a plain node:http request listener. */
export function createHandler(options: ServerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      options.logger.error({ err: error, path: req.url }, 'request failed');
      if (!res.headersSent) sendText(req, res, 500, 'internal error\n');
      else res.destroy();
    });
  };
}

/**
 * The path of a request, without its query. Not through `new URL`: a request line such as `//[` makes
 * it throw, and `//metrics` would parse as host `metrics` and path `/`.
 */
export function requestPath(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The query of a request, without its `?`; '' when it has none. */
function requestQuery(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? '' : url.slice(query + 1);
}

/** What answers a request's path: the metrics, a fixed path's route (fixed-paths.ts), or nothing. */
function routeOf(options: ServerOptions, path: string): FixedRoute | 'metrics' | undefined {
  return path === options.telemetryPath ? 'metrics' : FIXED_PATHS.get(path)?.route;
}

async function handle(options: ServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = routeOf(options, requestPath(req));
  if (route === undefined) {
    sendText(req, res, 404, 'not found\n');
    return;
  }
  if (route === 'reload') {
    await reload(options, req, res);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    sendText(req, res, 405, 'method not allowed\n');
    return;
  }
  switch (route) {
    case 'metrics': {
      const format = negotiateFormat(req.headers.accept);
      const encoding = acceptsGzip(req.headers['accept-encoding']) ? 'gzip' : 'identity';
      const chunks = await options.exposition(format, encoding);
      res.setHeader('vary', 'Accept, Accept-Encoding');
      if (encoding === 'gzip') res.setHeader('content-encoding', 'gzip');
      sendChunks(req, res, CONTENT_TYPES[format], chunks);
      return;
    }
    case 'healthy':
      sendText(req, res, 200, 'ok\n');
      return;
    case 'ready': {
      const readiness = options.readiness();
      sendText(req, res, readiness.ready ? 200 : 503, readiness.ready ? 'ready\n' : `${readiness.why}\n`);
      return;
    }
    case 'landing-page':
      // The page's own policy, unless the web config sets one (the operator's word wins).
      if (!res.hasHeader('content-security-policy'))
        res.setHeader('content-security-policy', landingPageCsp());
      send(
        req,
        res,
        200,
        'text/html; charset=utf-8',
        landingPage({
          rows: options.sources(),
          now: Date.now(),
          version: options.version,
          revision: options.revision,
          metricsPath: options.telemetryPath,
          shard: options.shard,
          readiness: options.readiness(),
          view: pageView(requestQuery(req)),
        }),
      );
      return;
    default:
      // A route of fixed-paths.ts without its case here does not compile.
      route satisfies never;
  }
}

/**
 * `POST /-/reload` (or PUT), Prometheus's lifecycle endpoint: the answer comes once the reload has been
 * applied (200) or refused (400, one line per problem as on stderr; the running configuration stays).
 * Requests while a reload waits share it, so they never queue up reloads.
 */
async function reload(options: ServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' && req.method !== 'PUT') {
    res.setHeader('allow', 'POST, PUT');
    sendText(req, res, 405, 'method not allowed\n');
    return;
  }
  if (!options.lifecycle()) {
    sendText(
      req,
      res,
      403,
      'reloading over HTTP is disabled; start the exporter with --web.enable-lifecycle (or web_enable_lifecycle: true in the config file)\n',
    );
    return;
  }
  options.logger.info('reload requested over HTTP');
  const outcome = await options.reload();
  switch (outcome.result) {
    case 'applied':
      sendText(req, res, 200, 'configuration reloaded\n');
      return;
    case 'invalid':
      sendText(req, res, 400, problemLines(outcome.problems));
      return;
    case 'failed':
      sendText(req, res, 500, 'reload failed; the log says why\n');
      return;
    default:
      sendText(req, res, 503, 'shutting down\n');
  }
}

/** A plain-text answer (no body for HEAD). */
export function sendText(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  send(req, res, status, 'text/plain; charset=utf-8', body);
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
): void {
  res.statusCode = status;
  res.setHeader('content-type', contentType);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A 200 whose body is `chunks` back to back: corked, they leave in one writev, never copied together. */
function sendChunks(
  req: IncomingMessage,
  res: ServerResponse,
  contentType: string,
  chunks: readonly Buffer[],
): void {
  res.statusCode = 200;
  res.setHeader('content-type', contentType);
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  res.setHeader('content-length', length);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
}
