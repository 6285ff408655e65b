import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config/types.js';

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

/** JSON-lines logger on stdout (or `destination`, which tests read back). */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { name: 'upstash-exporter' },
    redact: { paths: REDACT, censor: '<redacted>' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
