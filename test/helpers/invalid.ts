import { expect } from 'vitest';
import { InvalidResponseError, UpstashError } from '../../src/upstash/errors.js';

/** Runs `parse`, expects an InvalidResponseError with reason `invalid_response`, and returns it. */
export function invalid(parse: () => unknown): InvalidResponseError {
  try {
    parse();
  } catch (error) {
    return invalidResponse(error);
  }
  expect.unreachable('the body was accepted');
}

/** {@link invalid} for a parser that answers with a promise. */
export async function invalidAsync(parse: () => Promise<unknown>): Promise<InvalidResponseError> {
  try {
    await parse();
  } catch (error) {
    return invalidResponse(error);
  }
  expect.unreachable('the body was accepted');
}

function invalidResponse(error: unknown): InvalidResponseError {
  expect(error).toBeInstanceOf(InvalidResponseError);
  expect((error as InvalidResponseError).reason).toBe('invalid_response');
  return error as InvalidResponseError;
}

/** Awaits `promise`, expects it to reject with an UpstashError (of any reason), and returns the error. */
export async function upstashFailure(promise: Promise<unknown>): Promise<UpstashError> {
  const error = await promise.then(
    () => expect.unreachable('the read succeeded'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstashError);
  return error as UpstashError;
}
