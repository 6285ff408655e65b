import { NetworkError, TimeoutError } from './errors.js';

/**
 * What an error code of Node, undici or OpenSSL means, in the words of someone woken at 3 a.m.:
 * fixed texts only, so that nothing of a URL, a host or a certificate's subject can reach a page.
 */
const NETWORK_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the peer',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CLOSED: 'connection closed',
  ENOTFOUND: 'DNS lookup failed: no such host',
  EAI_AGAIN: 'DNS lookup failed: temporary failure',
  EAI_FAIL: 'DNS lookup failed',
  EAI_NONAME: 'DNS lookup failed: no such host',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
  EADDRNOTAVAIL: 'address not available',
  ETIMEDOUT: 'connection timed out',
  EPROTO: 'TLS: protocol error',
  ERR_SSL_WRONG_VERSION_NUMBER: 'TLS: wrong version (is the URL http://?)',
  CERT_HAS_EXPIRED: 'TLS: certificate expired',
  CERT_NOT_YET_VALID: 'TLS: certificate not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS: self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS: self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS: certificate not trusted (unknown issuer)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS: certificate not trusted (unknown issuer)',
  UNABLE_TO_GET_ISSUER_CERT: 'TLS: certificate not trusted (unknown issuer)',
  CERT_REVOKED: 'TLS: certificate revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS: certificate does not name the host',
  ERR_TLS_HANDSHAKE_TIMEOUT: 'TLS: handshake timed out',
};

/**
 * The cause of a failed connection in words, from the error code of it or of its causes (undici
 * wraps the socket's error), four levels deep at most; `connection failed` for a code not known.
 */
export function networkCause(cause: unknown): string {
  let current = cause;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const words = NETWORK_WORDS[code];
      if (words !== undefined) return words;
      // OpenSSL's many reasons, which Node names ERR_SSL_<reason>.
      if (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) return 'TLS: handshake failed';
    }
    current = (current as { cause?: unknown }).cause;
  }
  return 'connection failed';
}

/**
 * A failure's cause in words safe to show anywhere, or undefined when its reason says it all: the
 * network's (`connection refused`, `DNS lookup failed`, `TLS: certificate expired`) and a timeout's
 * bound (`no answer within 10 s`). Made of fixed texts and numbers only, never of the error's
 * message, which names the URL.
 */
export function failureWords(error: unknown): string | undefined {
  if (error instanceof NetworkError) return networkCause(error.cause);
  if (error instanceof TimeoutError) return `no answer within ${seconds(error.timeoutMs)}`;
  return undefined;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
