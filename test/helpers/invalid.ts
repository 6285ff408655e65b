import { expect } from 'vitest';
import { InvalidResponseError } from '../../src/upstash/errors.js';

/** Runs `parse`, expects an InvalidResponseError with reason `invalid_response`, and returns it. */
export function invalid(parse: () => unknown): InvalidResponseError {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as InvalidResponseError).reason).toBe('invalid_response');
    return error as InvalidResponseError;
  }
  expect.unreachable('the body was accepted');
}
