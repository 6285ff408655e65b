import { inspect } from 'node:util';

const REDACTED = '<redacted>';

/**
 * A credential that cannot leak by accident: it prints, serialises and inspects as `<redacted>`,
 * so a config object can be logged or dumped without a second thought. Only `reveal()` gives the value.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The real value, for the one place that builds the Authorization header. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

/**
 * Why a credential cannot go into an HTTP header, or undefined when it can. A stray newline (a
 * `${VAR}` filled from a file) would otherwise fail every poll, far from its cause.
 */
export function secretProblem(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
  if (/[\s\x00-\x1f\x7f]/.test(value)) return 'must not contain whitespace or control characters';
  // An HTTP header carries bytes, not text: a non-ASCII token cannot be sent as Upstash issued it, and
  // every poll would fail far from its cause.
  if (/[^\x21-\x7e]/.test(value)) return 'must be ASCII: Upstash credentials are';
  return undefined;
}
