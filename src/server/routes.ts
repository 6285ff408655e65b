import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Encoding } from '../metrics/exposition-cache.js';
import { CONTENT_TYPES, type Format } from '../metrics/exposition.js';

/** A row of the landing page's source table. */
export interface SourceRow {
  readonly labels: { readonly source: string; readonly account: string; readonly database_id: string };
  readonly outcome: string;
  readonly lastPollAt: number | undefined;
  readonly lastSuccessAt: number | undefined;
  readonly stale: boolean;
}

/** What the HTTP server serves; it never reaches Upstash itself. */
export interface ServerOptions {
  /** The /metrics body, already encoded (cached bytes: a scrape must not render or compress). */
  readonly exposition: (format: Format, encoding: Encoding) => Promise<readonly Buffer[]>;
  readonly ready: () => boolean;
  readonly sources: () => readonly SourceRow[];
  readonly version: string;
  readonly logger: Logger;
}

/** The routes of our own HTTP endpoint, as a plain node:http request listener. */
export function createHandler(options: ServerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      options.logger.error(
        { err: error instanceof Error ? error.message : String(error), path: req.url },
        'request failed',
      );
      if (!res.headersSent) send(req, res, 500, 'text/plain; charset=utf-8', 'internal error\n');
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

const ROUTES = new Set(['/', '/metrics', '/healthz', '/readyz']);

async function handle(options: ServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = requestPath(req);
  if (!ROUTES.has(path)) {
    send(req, res, 404, 'text/plain; charset=utf-8', 'not found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(req, res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    return;
  }
  switch (path) {
    case '/metrics': {
      const format = negotiateFormat(req.headers.accept);
      const encoding = acceptsGzip(req.headers['accept-encoding']) ? 'gzip' : 'identity';
      const chunks = await options.exposition(format, encoding);
      res.setHeader('vary', 'Accept, Accept-Encoding');
      if (encoding === 'gzip') res.setHeader('content-encoding', 'gzip');
      sendChunks(req, res, CONTENT_TYPES[format], chunks);
      return;
    }
    case '/healthz':
      send(req, res, 200, 'text/plain; charset=utf-8', 'ok\n');
      return;
    case '/readyz': {
      const ready = options.ready();
      send(
        req,
        res,
        ready ? 200 : 503,
        'text/plain; charset=utf-8',
        ready ? 'ready\n' : 'waiting for the first poll of every source\n',
      );
      return;
    }
    default:
      send(req, res, 200, 'text/html; charset=utf-8', landingPage(options));
  }
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

/**
 * OpenMetrics when the Accept header prefers it (by q-value; Prometheus sends both with weights),
 * the text format 0.0.4 otherwise.
 */
export function negotiateFormat(accept: string | undefined): Format {
  if (accept === undefined) return 'text';
  let openMetrics = -1;
  let text = -1;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isNaN(q)) continue;
    if (type === 'application/openmetrics-text') openMetrics = Math.max(openMetrics, q);
    else if (type === 'text/plain' || type === '*/*' || type === 'text/*') text = Math.max(text, q);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'text';
}

function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    return coding === 'gzip' && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function time(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString();
}

function landingPage(options: ServerOptions): string {
  const rows = options
    .sources()
    .map((s) => {
      const outcome = s.stale ? `${s.outcome} (stale: series dropped)` : s.outcome;
      const cells = [
        s.labels.source,
        s.labels.account,
        s.labels.database_id,
        outcome,
        time(s.lastPollAt),
        time(s.lastSuccessAt),
      ];
      return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Upstash exporter</title>
<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}</style>
</head>
<body>
<h1>Upstash exporter</h1>
<p>Version ${escapeHtml(options.version)}</p>
<ul>
<li><a href="metrics">/metrics</a></li>
<li><a href="healthz">/healthz</a></li>
<li><a href="readyz">/readyz</a></li>
</ul>
<h2>Sources</h2>
<table>
<tr><th>source</th><th>account</th><th>database_id</th><th>last outcome</th><th>last poll</th><th>last success</th></tr>
${rows}
</table>
</body>
</html>
`;
}

/** Splits `HOST:PORT` (`:PORT` for every interface, `[v6]:PORT`) for `server.listen`. */
export function parseListenAddress(address: string): { host: string | undefined; port: number } {
  const index = address.lastIndexOf(':');
  const host = address.slice(0, index).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? undefined : host, port: Number(address.slice(index + 1)) };
}

/**
 * Starts listening; rejects when the address cannot be bound (port in use, bad host). Later server
 * errors (accept failing with EMFILE under descriptor exhaustion) are logged: unhandled, they would end
 * the process.
 */
export async function listen(server: Server, address: string, logger: Logger): Promise<AddressInfo> {
  const { host, port } = parseListenAddress(address);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    logger.error({ err: error.code ?? error.message }, 'server error');
  });
  return server.address() as AddressInfo;
}

/** A plain-HTTP server with our routes. */
export function createHttpServer(options: ServerOptions): Server {
  return applyTimeouts(createServer(createHandler(options)));
}

/** The time limits of our listener (plain or TLS): slow or stuck clients cannot hold sockets for ever. */
export function applyTimeouts<S extends Server>(server: S): S {
  // A client that sends its request too slowly is cut off…
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 65_000;
  // …and so is one that stops reading the response: a socket without progress for 60 s is destroyed.
  server.timeout = 60_000;
  return server;
}
