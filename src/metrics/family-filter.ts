import { anchoredRegex } from './relabel-regex.js';

// Which metric families /metrics shows: `metrics.allow` and `metrics.deny`, regular expressions on the
// family name matched whole (as kube-state-metrics' allow and deny lists, and Prometheus relabelling).
//
// The engine is the one of the `include`/`exclude` filters of discovery (RE2, relabel-regex.ts), so
// that one expression means one thing everywhere; its problems are reported by `regexProblem`.

/** The lists as configured: empty `allow` allows every family. */
export interface FamilySelection {
  readonly allow: readonly string[];
  readonly deny: readonly string[];
}

/** Whether a family (by name, a counter with its `_total`) is shown. */
export type FamilyPredicate = (name: string) => boolean;

/** Shows every family: the predicate of an empty selection, without a lookup. */
export const ALL_FAMILIES: FamilyPredicate = () => true;

/** `pattern` compiled to test whole names; throws unless `regexProblem` found none. */
export function compileNamePattern(pattern: string): FamilyPredicate {
  const compiled = anchoredRegex(pattern);
  return (name) => compiled.test(name);
}

/**
 * The predicate of a selection, decided once per family: a configuration's answers are kept (there are
 * as many as the program has families), so the expressions run once per family per configuration,
 * not per scrape or per line. The selection must have passed `regexProblem`.
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
