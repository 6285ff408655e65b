// The PromQL the dashboards are made of, each rule written once: the selector every query starts from
// (the job and account variables, matched with =~ because both are multi-value) and the joins that put
// a name beside an ID (a database's name, a QStash instance's region, an index's name), from the
// listings' `_info` series.

/** `metric{job=~"$job"}`, more matchers appended: the exporter's own series that carry no account. */
export function byJob(metric: string, ...more: string[]): string {
  return `${metric}{${['job=~"$job"', ...more].join(', ')}}`;
}

/** `metric{job=~"$job", account=~"$account"}`, more matchers appended: every series of an account. */
export function sel(metric: string, ...more: string[]): string {
  return byJob(metric, 'account=~"$account"', ...more);
}

/** `label_values(selector, label)`: a variable's choices. */
export function labelValues(selector: string, label: string): string {
  return `label_values(${selector}, ${label})`;
}

/** The per-second rate over Grafana's rate interval, the only range the dashboards use. */
export function rate(selector: string): string {
  return `rate(${selector}[$__rate_interval])`;
}

/** The per-second rate of an account's `metric` (more matchers appended), summed by account and `by`. */
export function sumRate(by: string, metric: string, ...more: string[]): string {
  return `sum by (account, ${by}) (${rate(sel(metric, ...more))})`;
}

/** A kind of unit that a listing names: the ID label, the name label, and the info series. */
export interface Names {
  readonly key: string;
  readonly label: string;
  readonly infos: readonly string[];
}

export const DATABASE: Names = {
  key: 'database_id',
  label: 'database_name',
  infos: ['upstash_redis_database_info'],
};
export const QSTASH: Names = { key: 'qstash_id', label: 'region', infos: ['upstash_qstash_instance_info'] };
export const VECTOR_INDEX: Names = {
  key: 'index_id',
  label: 'index_name',
  infos: ['upstash_vector_index_info'],
};
export const SEARCH_INDEX: Names = {
  key: 'index_id',
  label: 'index_name',
  infos: ['upstash_search_index_info'],
};
/** Both kinds of index at once (one index_id label, two listings). */
export const INDEX: Names = { ...VECTOR_INDEX, infos: [...VECTOR_INDEX.infos, ...SEARCH_INDEX.infos] };

/** `(job, account, key)`: what identifies one unit across jobs and accounts. */
function unit(n: Names): string {
  return `(job, account, ${n.key})`;
}

/** The info series of a kind, narrowed by more matchers (the chosen names). */
export function info(n: Names, ...more: string[]): string {
  return n.infos.map((i) => sel(i, ...more)).join(' or ');
}

/**
 * `expr * on (…) group_left (name) topk by (…) (1, info)`: the series of the chosen units only, each
 * with its name. topk keeps one info series per unit when a listing briefly reports two.
 */
export function named(expr: string, n: Names, ...chosen: string[]): string {
  return `${expr} * on ${unit(n)} group_left (${n.label}) topk by ${unit(n)} (1, ${info(n, ...chosen)})`;
}

/** The `$database` variable's databases, by name. */
export const CHOSEN_DATABASES = 'database_name=~"$database"';

/** `expr` of the databases the `$database` variable chose, each series named. */
export const chosenDatabases = (expr: string): string => named(expr, DATABASE, CHOSEN_DATABASES);

/**
 * Like {@link named}, for series of several kinds of unit at once, and for units that no listing names
 * (its source off or failing): these keep their series, without a name, through `or` a name-less copy
 * of `fallback`'s units.
 */
export function namedOrNot(expr: string, fallback: string, ...kinds: Names[]): string {
  const joins = kinds.map(
    (n) =>
      ` * on ${unit(n)} group_left (${n.label}) (topk by ${unit(n)} (1, ${info(n)}) or on ${unit(n)} group by ${unit(n)} (${fallback}))`,
  );
  return `(${expr})${joins.join('')}`;
}

/**
 * `value / limit` per unit. Where `positiveOnly` (the default), limits of 0 or less (none, or -1 for
 * unlimited) are left out, so that no ratio divides by them.
 */
export function perLimit(value: string, limit: string, n: Names, positiveOnly = true): string {
  return `${value} / on ${unit(n)} group_left max by ${unit(n)} (${limit}${positiveOnly ? ' > 0' : ''})`;
}

/** `expr and on (…) info`: the series of the chosen units, without the name. */
export function onlyChosen(expr: string, n: Names, ...chosen: string[]): string {
  return `${expr} and on ${unit(n)} ${info(n, ...chosen)}`;
}
