import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { jsonAnswer, send } from './answer.js';
import type { Answer } from './answer.js';
import type { Credential, Endpoint, RouteSpec } from './endpoint.js';
import { applyFault, Timers } from './faults.js';
import type { FaultTable } from './faults.js';
import type { RouteParams } from './paths.js';

/** What the simulator accepts as QStash's bearer token and the management API's basic credentials. */
export interface Credentials {
  readonly qstashToken: string;
  readonly email: string;
  readonly apiKey: string;
}

/** A route the server serves: its spec, and the endpoint instance that answers it. */
export interface ServedRoute<R extends string> {
  readonly spec: RouteSpec<R>;
  readonly endpoint: Endpoint;
}

/** Options of {@link SimulatorServer}. */
export interface SimulatorServerOptions<R extends string> {
  readonly host: string;
  /** Port to listen on; 0 for an ephemeral one, kept across restarts. */
  readonly port: number;
  readonly credentials: Credentials;
  /** Routes in the order their paths are matched. */
  readonly routes: readonly ServedRoute<R>[];
  readonly faults: FaultTable<R>;
  /** Hears every request a route matched, as it arrives (before auth and faults). */
  readonly onRequest?: ((route: R, path: string) => void) | undefined;
}

/** The 401 answer if the Authorization header does not carry the credential, else undefined. */
function refuse(credential: Credential, authorization: string, credentials: Credentials): Answer | undefined {
  if (credential === 'basic') {
    const m = /^Basic\s+(\S+)$/i.exec(authorization);
    const expected = `${credentials.email}:${credentials.apiKey}`;
    if (m?.[1] === undefined || Buffer.from(m[1], 'base64').toString('utf8') !== expected) {
      return jsonAnswer(401, { error: 'Unauthorized' }, { 'www-authenticate': 'Basic realm="upstash"' });
    }
    return undefined;
  }
  if (authorization !== `Bearer ${credentials.qstashToken}`) {
    return jsonAnswer(401, { error: 'Unauthorized' }, { 'www-authenticate': 'Bearer' });
  }
  return undefined;
}

/** The first route whose path matches, with the parameters taken from the path. */
function findRoute<R extends string>(
  routes: readonly ServedRoute<R>[],
  path: string,
): { route: ServedRoute<R>; params: RouteParams } | undefined {
  for (const route of routes) {
    const params = route.spec.match(path);
    if (params) return { route, params };
  }
  return undefined;
}

/**
 * The simulator's HTTP listener: routes requests through the table, counts them, checks auth, and
 * applies faults. It tracks every socket so stop() can end hung and trickling requests at once.
 */
export class SimulatorServer<R extends string> {
  readonly #options: SimulatorServerOptions<R>;
  readonly #urlHost: string;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Timers();
  readonly #counters: Map<R, number>;
  readonly #headers = new Map<R, IncomingHttpHeaders>();
  readonly #paths = new Map<R, string>();
  #server: Server | undefined;
  #port: number;
  #connectionsOpened = 0;

  constructor(options: SimulatorServerOptions<R>) {
    this.#options = options;
    this.#urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
    this.#port = options.port;
    this.#counters = new Map(options.routes.map((r) => [r.spec.name, 0]));
  }

  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  get url(): string {
    return `http://${this.#urlHost}:${this.#port}`;
  }

  /** TCP connections accepted since construction (across restarts). */
  get connectionsOpened(): number {
    return this.#connectionsOpened;
  }

  /** Requests received for a route, whatever their method or outcome. */
  requests(route: R): number {
    return this.#counters.get(route) ?? 0;
  }

  /** Headers of the last request received for a route. */
  lastHeaders(route: R): IncomingHttpHeaders | undefined {
    return this.#headers.get(route);
  }

  /** Raw path (still URL-encoded, with query) of the last request received for a route. */
  lastPath(route: R): string | undefined {
    return this.#paths.get(route);
  }

  /** Starts listening; after the first time, on the port the first listen got. */
  async listen(): Promise<void> {
    const s = createServer((req, res) => {
      this.#handle(req, res);
    });
    s.on('connection', (socket) => {
      this.#connectionsOpened++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen({ host: this.#options.host, port: this.#port }, () => {
        s.off('error', reject);
        resolve();
      });
    });
    this.#port = (s.address() as AddressInfo).port;
    this.#server = s;
  }

  /** Closes the listener and destroys every open connection, hung ones included. */
  async stop(): Promise<void> {
    const s = this.#server;
    if (!s) return;
    this.#server = undefined;
    this.#timers.clear();
    const closed = new Promise<void>((resolve) =>
      s.close(() => {
        resolve();
      }),
    );
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const rawPath = req.url ?? '/';
    const match = findRoute(this.#options.routes, rawPath.split('?', 1)[0] ?? '/');
    if (!match) {
      send(res, jsonAnswer(404, { error: 'not found' }));
      return;
    }
    const { route, params } = match;
    const { spec, endpoint } = route;
    this.#counters.set(spec.name, (this.#counters.get(spec.name) ?? 0) + 1);
    this.#headers.set(spec.name, req.headers);
    this.#paths.set(spec.name, rawPath);
    this.#options.onRequest?.(spec.name, rawPath);
    if (req.method !== 'GET') {
      send(res, jsonAnswer(405, { error: 'method not allowed' }, { allow: 'GET' }));
      return;
    }
    // Computed only when used: a delayed answer reads the clock when it is finally sent.
    const normal = (): Answer =>
      refuse(spec.credential, req.headers.authorization ?? '', this.#options.credentials) ??
      endpoint.answer(params, new URLSearchParams(rawPath.split('?')[1] ?? ''));
    const fault = this.#options.faults.take(spec.name);
    if (fault) applyFault(res, fault, { normal, oversizeFrame: spec.oversizeFrame, timers: this.#timers });
    else send(res, normal());
  }
}
