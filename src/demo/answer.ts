import type { ServerResponse } from 'node:http';

/** A complete response, computed before anything is written so a fault can delay, cut or re-type it. */
export interface Answer {
  status: number;
  body: Buffer;
  headers?: Record<string, string>;
}

/** Content type of every body the real endpoints send. */
export const JSON_TYPE = 'application/json';

/** An answer whose body is `value` as JSON. */
export function jsonAnswer(status: number, value: unknown, headers?: Record<string, string>): Answer {
  return { status, body: Buffer.from(JSON.stringify(value)), ...(headers ? { headers } : {}) };
}

/** Writes a whole answer with its Content-Length. */
export function send(res: ServerResponse, answer: Answer, contentType = JSON_TYPE): void {
  res.writeHead(answer.status, {
    'content-type': contentType,
    'content-length': String(answer.body.length),
    ...answer.headers,
  });
  res.end(answer.body);
}
