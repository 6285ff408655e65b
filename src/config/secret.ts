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
