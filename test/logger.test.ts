import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { createLogger, MAX_LOG_FIELD_LENGTH } from '../src/logger.js';
import { InvalidResponseError } from '../src/upstash/errors.js';

// Whatever a log call is given, a line carries at most a bounded prefix of each value: a request
// path, an ID from a listing, an error quoting a URL (the one excerpt rule, upstash/excerpt.ts).

function capture(format: 'json' | 'text' = 'json') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('debug', sink, format), lines };
}

const HUGE = 200_000;

describe('createLogger bounds every field', () => {
  test('strings, nested ones, arrays and an error of 200,000 characters make a short line', () => {
    const { logger, lines } = capture();
    const huge = (c: string) => c.repeat(HUGE);
    logger.warn(
      {
        path: `/metrics?${huge('p')}`,
        id: huge('i'),
        labels: { queue: huge('q'), list: [huge('l')] },
        err: new Error(`boom ${huge('e')}`),
      },
      'a line',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(30_000);
    const line = JSON.parse(lines[0]!) as {
      path: string;
      id: string;
      msg: string;
      labels: { queue: string; list: string[] };
      err: { message: string; type: string };
    };
    expect(line.path).toMatch(new RegExp(`^/metrics\\?p+… \\(${HUGE + 9} characters\\)$`));
    expect(line.id).toHaveLength(MAX_LOG_FIELD_LENGTH + ` (${HUGE} characters)`.length + 1);
    expect(line.labels.queue.startsWith('qqq')).toBe(true);
    expect(line.labels.list[0]!.length).toBeLessThan(MAX_LOG_FIELD_LENGTH + 30);
    expect(line.err.message.startsWith('boom eee')).toBe(true);
    expect(line.err.message.length).toBeLessThan(MAX_LOG_FIELD_LENGTH + 30);
    expect(line.err.type).toBe('Error');
    expect(line.msg).toBe('a line');
  });

  test('a poll failure quoting a 200,000-character URL: a short line in JSON and in text', () => {
    for (const format of ['json', 'text'] as const) {
      const { logger, lines } = capture(format);
      const error = new InvalidResponseError(
        'GET',
        `https://q.example/v2/dlq?cursor=${'c'.repeat(HUGE)}`,
        'x',
      );
      logger.warn({ source: 'dlq', reason: error.reason, err: error.message }, 'poll failed');
      logger.error({ source: 'dlq', err: error }, 'poll failed unexpectedly');
      expect(lines.join('').length).toBeLessThan(20_000);
      expect(lines.join('')).toContain('GET https://q.example/v2/dlq?cursor=ccc');
    }
  });

  test('short fields pass unchanged, and redaction still applies', () => {
    const { logger, lines } = capture();
    logger.info({ source: 'dlq', count: 3, ok: true, token: 'secret-token-1' }, 'fine');
    expect(JSON.parse(lines[0]!)).toMatchObject({ source: 'dlq', count: 3, ok: true, token: '<redacted>' });
  });
});
