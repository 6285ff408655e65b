import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from './config/types.js';
import { excerpt } from './upstash/excerpt.js';

// Belt and braces: secrets are wrapped in a type that prints as <redacted> and never put in log
// fields, but should a header or credential object ever reach a log call, pino censors it here.
const REDACT = [
  'authorization',
  'headers.authorization',
  '*.headers.authorization',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'password',
  '*.password',
];

/**
 * The longest string a log field carries: a label, an ID, an error's message quoting excerpts of a
 * URL. Longer ones (a request path, an ID from a listing, text from a bug of ours) are cut by the
 * one excerpt rule, so no field is more than a bounded prefix of what it was given.
 */
export const MAX_LOG_FIELD_LENGTH = 2048;
/** An error's stack, its message and causes included, at most (a few dozen frames). */
const MAX_LOG_STACK_LENGTH = 8192;
/** How deep a field's objects are bounded; deeper values are logged as `[…]`. */
const MAX_LOG_DEPTH = 6;

/**
 * `value` with every string in it cut to {@link MAX_LOG_FIELD_LENGTH}, through arrays and plain
 * objects; anything else (an error, left to the `err` serializer; a Date) is left as it is.
 */
function bounded(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return excerpt(value, MAX_LOG_FIELD_LENGTH);
  if (typeof value !== 'object' || value === null) return value;
  const array = Array.isArray(value);
  const plain = array || [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null);
  if (!plain) return value;
  if (depth >= MAX_LOG_DEPTH) return '[…]';
  if (array) return value.map((item: unknown) => bounded(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bounded(item, depth + 1)]));
}

/** pino's error serializer, its message and stack cut like any field. */
function boundedError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error) as unknown;
  if (typeof serialized !== 'object' || serialized === null) return bounded(serialized);
  const { message, stack, ...rest } = serialized as { message?: unknown; stack?: unknown };
  return {
    ...(bounded(rest) as object),
    ...(typeof message === 'string' && { message: excerpt(message, MAX_LOG_FIELD_LENGTH) }),
    ...(typeof stack === 'string' && { stack: excerpt(stack, MAX_LOG_STACK_LENGTH) }),
  };
}

/**
 * The logger on stdout (or `destination`, which tests read back): JSON lines, or with `text` one
 * readable line per event (pino-pretty, written synchronously so nothing is lost at exit). Redaction
 * runs before either format sees a field.
 */
export function createLogger(
  level: LogLevel,
  destination?: DestinationStream,
  format: LogFormat = 'json',
): Logger {
  const options = {
    level,
    base: { name: 'upstash-exporter' },
    redact: { paths: REDACT, censor: '<redacted>' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      level: (label: string) => ({ level: label }),
      log: (fields: Record<string, unknown>) => bounded(fields) as Record<string, unknown>,
    },
    serializers: { err: boundedError },
  };
  if (format === 'text') {
    const text = pretty({
      sync: true,
      singleLine: true,
      colorize: destination === undefined && process.stdout.isTTY,
      translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
      ignore: 'pid,hostname,name',
      ...(destination !== undefined && { destination }),
    });
    return pino(options, text);
  }
  return destination === undefined ? pino(options) : pino(options, destination);
}

/**
 * Where `logger` writes: the poll worker's lines, formatted and redacted by its own logger, are
 * written there as they come, so that they reach the same place (and pass through pino-pretty when
 * the format is text).
 */
export function logDestination(logger: Logger): DestinationStream {
  const stream = (logger as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
  if (stream === undefined) throw new Error('the logger has no destination stream');
  return stream;
}
