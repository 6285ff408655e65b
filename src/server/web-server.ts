import {
  createServer as createPlainServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { ConnectionGuard, connectionLimits, readFdLimit, type ConnectionLimits } from './connection-guard.js';
import { applyTimeouts, HANDSHAKE_TIMEOUT_MS, SERVER_OPTIONS } from './listener.js';
import { FIXED_PATHS } from '../fixed-paths.js';
import { requestPath, sendText } from './routes.js';
import { screenConnections } from './screened-socket.js';
import type { ClientAuthType } from './web-config.js';
import type { WebSettings } from './web-settings.js';

/** Paths that answer without credentials (fixed-paths.ts): probes must not need a secret. */
const OPEN_PATHS: ReadonlySet<string> = new Set(
  [...FIXED_PATHS].filter(([, p]) => p.open).map(([path]) => path),
);
const REALM = 'Basic realm="upstash-exporter", charset="UTF-8"';

/**
 * Our HTTP server with the web configuration applied: TLS (plain HTTP without `tls_server_config`),
 * client-certificate policy, basic auth on every path but the probes', and the configured headers; with
 * its connections bounded (see {@link ConnectionGuard}; by default from this process's descriptor
 * limit) and its timeouts set. The settings are looked up per connection and per request, so their
 * changes apply without a restart.
 */
export function createWebServer(
  settings: WebSettings,
  handler: RequestListener,
  logger: Logger,
  limits: ConnectionLimits = connectionLimits(readFdLimit()),
): Server {
  const connections = new ConnectionGuard(limits, logger);
  const authenticated = guard(settings, handler, logger);
  const server = buildServer(
    settings,
    (req, res) => {
      if (connections.admit(req, res)) authenticated(req, res);
    },
    (socket) => connections.screen(socket),
    logger,
  );
  connections.attach(server);
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => refuseConnect(settings, socket));
  return server;
}

function buildServer(
  settings: WebSettings,
  listener: RequestListener,
  screen: (socket: Socket) => Duplex,
  logger: Logger,
): Server {
  if (!settings.tlsEnabled) {
    const server = applyTimeouts(createPlainServer(SERVER_OPTIONS, listener));
    screenConnections(server, 'connection', screen);
    return server;
  }

  let state = settings.current();
  const requested = state.config.tls?.clientAuthType ?? 'NoClientCert';
  const server = applyTimeouts(
    createTlsServer(
      {
        ...SERVER_OPTIONS,
        handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
        ...state.tls,
        // Whether to ask for a certificate is fixed at start; the policy is enforced per connection
        // below, so that a reloaded client_auth_type or CA applies at once.
        requestCert: requested !== 'NoClientCert',
        rejectUnauthorized: false,
      },
      listener,
    ),
  );
  screenConnections(server, 'secureConnection', screen);
  // Runs before the TLS handshake of each connection: a rotated certificate is in the next handshake.
  server.prependListener('connection', () => {
    const next = settings.current();
    if (next.generation !== state.generation && next.tls !== undefined) {
      server.setSecureContext(next.tls);
      const type = next.config.tls?.clientAuthType ?? 'NoClientCert';
      if (requested === 'NoClientCert' && type !== 'NoClientCert') {
        logger.warn(
          { client_auth_type: type },
          'client certificates are only requested after a restart; connections are refused until then',
        );
      }
    }
    state = next;
  });
  server.prependListener('secureConnection', (socket: TLSSocket) => {
    const type = settings.current().config.tls?.clientAuthType ?? 'NoClientCert';
    const refusal = clientCertRefusal(type, socket, requested !== 'NoClientCert');
    if (refusal !== undefined) {
      // Of our own clients too, no address is logged: an IP is personal data (docs/security.md).
      logger.info({ reason: refusal }, 'TLS connection refused');
      socket.destroy();
    }
  });
  server.on('tlsClientError', (error: Error) => {
    logger.debug({ err: error }, 'TLS handshake failed');
  });
  return server;
}

/**
 * CONNECT never reaches the request listener: Node hands it to the 'connect' event with the bare socket,
 * and closes the connection without a word when nobody listens. It gets the 405 of every other method
 * (whatever the credentials and the path: CONNECT is never allowed), written by hand.
 */
function refuseConnect(settings: WebSettings, socket: Duplex): void {
  // Node took its own listeners off this socket, the error one included.
  socket.on('error', () => socket.destroy());
  const body = 'method not allowed\n';
  const headers: Record<string, string> = {
    ...settings.current().config.headers,
    allow: 'GET, HEAD',
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 405 Method Not Allowed\r\n${head.join('')}\r\n${body}`, () => socket.destroy());
}

/** Why a TLS connection breaks the client-certificate policy; undefined when it may proceed. */
function clientCertRefusal(type: ClientAuthType, socket: TLSSocket, requested: boolean): string | undefined {
  if (type === 'NoClientCert' || type === 'RequestClientCert') return undefined;
  if (!requested) return 'client certificates not requested (restart needed)';
  const given = Object.keys(socket.getPeerCertificate()).length > 0;
  if (type === 'RequireAnyClientCert') return given ? undefined : 'no client certificate';
  if (type === 'VerifyClientCertIfGiven')
    return !given || socket.authorized ? undefined : 'client certificate not trusted';
  if (!given) return 'no client certificate';
  return socket.authorized ? undefined : 'client certificate not trusted';
}

function guard(settings: WebSettings, handler: RequestListener, logger: Logger): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const { config, auth } = settings.current();
    for (const [name, value] of Object.entries(config.headers)) res.setHeader(name, value);
    const path = requestPath(req);
    if (!auth.enabled || OPEN_PATHS.has(path)) {
      handler(req, res);
      return;
    }
    auth.check(req.headers.authorization).then(
      (result) => {
        if (result === 'ok') {
          handler(req, res);
          return;
        }
        if (result === 'busy') {
          res.setHeader('retry-after', '1');
          sendText(req, res, 429, 'too many authentication attempts in progress\n');
          return;
        }
        // No detail on purpose: absent, malformed, unknown user and wrong password look the same.
        logger.debug({ path }, 'unauthorized request');
        res.setHeader('www-authenticate', REALM);
        sendText(req, res, 401, 'unauthorized\n');
      },
      (error: unknown) => {
        logger.error({ err: error }, 'authentication failed');
        sendText(req, res, 500, 'internal error\n');
      },
    );
  };
}
