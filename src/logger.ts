import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogFormat, LogLevel } from './config/types.js';

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
    formatters: { level: (label: string) => ({ level: label }) },
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
