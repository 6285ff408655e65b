// Which metric families /metrics shows: `metrics.allow` and `metrics.deny`, regular expressions on the
// family name matched whole (as kube-state-metrics' allow and deny lists, and Prometheus relabelling).
//
// The engine is chosen in one place, compileNamePattern and namePatternProblem below: the same as the
// `include`/`exclude` filters of discovery, so that one expression means one thing everywhere. Names
// are ours (the catalogue's and prom-client's, a hundred or so, short), never Upstash's, so no
// expression meets a hostile input here.

/** The lists as configured: empty `allow` allows every family. */
export interface FamilySelection {
  readonly allow: readonly string[];
  readonly deny: readonly string[];
}

/** Whether a family (by name, a counter with its `_total`) is shown. */
export type FamilyPredicate = (name: string) => boolean;

/** Shows every family: the predicate of an empty selection, without a lookup. */
export const ALL_FAMILIES: FamilyPredicate = () => true;

/**
 * Why `pattern` is not an expression {@link compileNamePattern} takes, never quoting it (a
 * configuration error does not echo values); undefined when it is one. It must compile on its own, not
 * only once wrapped: `a)|(b` would otherwise escape the anchors.
 */
export function namePatternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern);
    new RegExp(wrap(pattern));
    return undefined;
  } catch {
    return 'is not a valid regular expression';
  }
}

/** `pattern` compiled to test whole names; throws unless {@link namePatternProblem} found none. */
export function compileNamePattern(pattern: string): FamilyPredicate {
  const compiled = new RegExp(wrap(pattern), 's');
  return (name) => compiled.test(name);
}

function wrap(pattern: string): string {
  return `^(?:${pattern})$`;
}

/**
 * The predicate of a selection, decided once per family: a configuration's answers are kept (there are
 * as many as the program has families), so the expressions run once per family per configuration,
 * not per scrape or per line. The selection must have passed {@link namePatternProblem}.
 */
export function familyPredicate(selection: FamilySelection): FamilyPredicate {
  if (selection.allow.length === 0 && selection.deny.length === 0) return ALL_FAMILIES;
  const allow = selection.allow.map(compileNamePattern);
  const deny = selection.deny.map(compileNamePattern);
  const decided = new Map<string, boolean>();
  return (name) => {
    let shown = decided.get(name);
    if (shown === undefined) {
      shown = (allow.length === 0 || allow.some((test) => test(name))) && !deny.some((test) => test(name));
      decided.set(name, shown);
    }
    return shown;
  };
}
