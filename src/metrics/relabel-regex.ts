import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

// Regular expressions as Prometheus relabelling reads them: RE2 syntax (Go's regexp), matched against
// the whole value, `.` matching newlines too (Prometheus compiles `^(?s:<regex>)$`). RE2 runs in time
// linear in the value's length whatever the expression; JavaScript's RegExp backtracks, and one
// `.*-.*-.*-x` against a long name held the event loop for seconds.

/** A compiled expression that tests a whole value. */
export interface AnchoredRegex {
  test(value: string): boolean;
}

/**
 * Why `pattern` is not an expression {@link anchoredRegex} takes, as a configuration problem, in
 * RE2's words but never quoting the pattern (a configuration error must not echo values); undefined
 * when it is one. It must compile on its own, not only once wrapped: `a)|(b` would otherwise escape
 * the anchors.
 */
export function regexProblem(pattern: string): string | undefined {
  try {
    RE2JS.compile(pattern);
    RE2JS.compile(wrap(pattern));
    return undefined;
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) return `${NOT_VALID}: ${error.error}`;
    // Other refusals' messages may quote the pattern.
    if (error instanceof RE2JSException) return `${NOT_VALID}: not accepted by RE2`;
    throw error;
  }
}

const NOT_VALID = 'is not a valid regular expression (RE2 syntax)';

/** `pattern` compiled to test whole values; throws unless {@link regexProblem} found none. */
export function anchoredRegex(pattern: string): AnchoredRegex {
  const compiled = RE2JS.compile(wrap(pattern));
  return { test: (value) => compiled.testExact(value) };
}

function wrap(pattern: string): string {
  return `^(?s:${pattern})$`;
}
