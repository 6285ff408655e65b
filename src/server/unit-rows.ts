import type { UnitStatus } from '../vocabulary.js';

// The units' rows of the landing page (landing-page.ts): their grouping and order, each row's cells,
// the filter's matching, and the words and times they are written in. Pure functions of the rows.

/** The `<td>` columns of a unit's row. */
export const COLUMNS = 7;

/** Whether the unit's last poll failed (neither `ok` nor `pending`). */
export function isFailing(row: UnitStatus): boolean {
  return row.outcome !== 'ok' && row.outcome !== 'pending';
}

/** What the filter looks in: source, account, name, ID, state, error and warnings, in lower case. */
export function searchText(row: UnitStatus): string {
  const state = row.outcome === 'ok' ? 'up' : row.outcome === 'pending' ? 'pending' : 'down failing';
  return [row.labels.source, row.labels.account, row.name, unitId(row), state, row.error, ...row.warnings]
    .join(' ')
    .toLowerCase();
}

/** The filter's words, in lower case. */
export function searchTerms(filter: string): string[] {
  return filter
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== '');
}

/** ` hidden` when the row does not hold every word of the filter. */
export function hiddenBy(row: UnitStatus, terms: readonly string[]): string {
  if (terms.length === 0) return '';
  const text = searchText(row);
  return terms.every((term) => text.includes(term)) ? '' : ' hidden';
}

export const HEADER = `<tr>${[
  'Unit',
  'State',
  'Last success',
  'Last poll',
  'Duration',
  'Interval',
  'Next poll',
]
  .map((name) => `<th>${name}</th>`)
  .join('')}</tr>`;

/** The rows by account, then by source, each level sorted, the units failing first, then by name and ID. */
export function groupRows(rows: readonly UnitStatus[]): [string, [string, UnitStatus[]][]][] {
  const accounts = new Map<string, Map<string, UnitStatus[]>>();
  for (const row of rows) {
    let sources = accounts.get(row.labels.account);
    if (sources === undefined) {
      sources = new Map<string, UnitStatus[]>();
      accounts.set(row.labels.account, sources);
    }
    const units = sources.get(row.labels.source);
    if (units === undefined) sources.set(row.labels.source, [row]);
    else units.push(row);
  }
  return [...accounts]
    .sort(byKey)
    .map(([account, sources]) => [
      account,
      [...sources]
        .sort(byKey)
        .map(([source, units]) => [source, units.sort(byUnit)] as [string, UnitStatus[]]),
    ]);
}

function byKey(a: readonly [string, unknown], b: readonly [string, unknown]): number {
  return compare(a[0], b[0]);
}

/**
 * The failing first, then those with warnings, then the rest; each by name (a unit without one by
 * its ID), then by ID: a fixed order, whatever the locale.
 */
function byUnit(a: UnitStatus, b: UnitStatus): number {
  return (
    rank(a) - rank(b) || compare(a.name || unitId(a), b.name || unitId(b)) || compare(unitId(a), unitId(b))
  );
}

function rank(row: UnitStatus): number {
  return isFailing(row) ? 0 : row.warnings.length > 0 ? 1 : 2;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The unit's ID (a database, QStash instance or index ID); '' for an account-wide unit. */
export function unitId(row: UnitStatus): string {
  return row.labels.database_id || row.labels.qstash_id || row.labels.index_id;
}

export function rowHtml(row: UnitStatus, now: number, anchor: string, terms: readonly string[]): string {
  const id = unitId(row);
  const unit =
    id === ''
      ? '<span class="whole">whole account</span>'
      : row.name === ''
        ? `<span class="id">${escapeHtml(id)}</span>`
        : `${escapeHtml(row.name)}<span class="id">${escapeHtml(id)}</span>`;
  const cells = [
    `<td class="unit">${unit}</td>`,
    `<td>${stateHtml(row)}</td>`,
    `<td>${row.lastSuccessAt === undefined ? '<span class="muted">never</span>' : ago(row.lastSuccessAt, now)}</td>`,
    `<td>${row.lastPollAt === undefined ? '<span class="muted">not yet</span>' : ago(row.lastPollAt, now)}</td>`,
    `<td>${row.lastDurationMs === undefined ? '' : escapeHtml(duration(row.lastDurationMs))}</td>`,
    `<td>${escapeHtml(span(row.intervalMs))}</td>`,
    `<td>${nextPoll(row, now)}</td>`,
  ];
  return `<tr id="${anchor}"${hiddenBy(row, terms)} data-text="${escapeHtml(searchText(row))}">${cells.join('')}</tr>`;
}

function stateHtml(row: UnitStatus): string {
  const notes: string[] = [];
  let badge: string;
  if (row.outcome === 'ok') badge = '<span class="state up">up</span>';
  else if (row.outcome === 'pending') badge = '<span class="state wait">pending</span>';
  else {
    badge = '<span class="state down">down</span>';
    notes.push(`<span class="detail">${escapeHtml(row.error || row.outcome)}</span>`);
  }
  if (row.stale) notes.push('<span class="detail">stale: its series were dropped</span>');
  if (row.lists !== '' && row.outcome !== 'ok' && row.outcome !== 'pending') {
    // What a failing listing means for the units it discovers: none yet, or the last ones it named.
    const kind = escapeHtml(row.lists.replaceAll('_', ' '));
    notes.push(
      row.lastSuccessAt === undefined
        ? `<span class="hint">No ${kind} known yet: their units appear after its first success.</span>`
        : `<span class="hint">Each ${kind} it listed last is still polled.</span>`,
    );
  }
  for (const warning of row.warnings) notes.push(`<span class="warning">${escapeHtml(warning)}</span>`);
  if (row.running) notes.push('<span class="hint">polling now…</span>');
  return badge + notes.join('');
}

function nextPoll(row: UnitStatus, now: number): string {
  if (row.notBefore > row.nextPollAt) {
    return `<time datetime="${iso(row.notBefore)}" title="${iso(row.notBefore)}">${escapeHtml(
      relative(row.notBefore, now),
    )}</time> <span class="muted nowrap">(Retry-After)</span>`;
  }
  return `<time datetime="${iso(row.nextPollAt)}" title="${iso(row.nextPollAt)}">${escapeHtml(relative(row.nextPollAt, now))}</time>`;
}

function ago(at: number, now: number): string {
  const text = now - at < 1000 ? 'just now' : `${span(now - at)} ago`;
  return `<time datetime="${iso(at)}" title="${iso(at)}">${escapeHtml(text)}</time>`;
}

function relative(at: number, now: number): string {
  return at - now < 1000 ? 'due now' : `in ${span(at - now)}`;
}

/** A time span in its two largest units: `12 s`, `4 min 5 s`, `3 h 20 min`, `2 d 4 h`. */
export function span(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  for (const [index, [size, name]] of SPAN_UNITS.entries()) {
    if (s < size) continue;
    const whole = `${Math.floor(s / size)} ${name}`;
    const next = SPAN_UNITS[index + 1];
    const rest = next === undefined ? 0 : Math.floor((s % size) / next[0]);
    return rest === 0 || next === undefined ? whole : `${whole} ${rest} ${next[1]}`;
  }
  return `${s} s`;
}

const SPAN_UNITS: readonly (readonly [number, string])[] = [
  [86_400, 'd'],
  [3_600, 'h'],
  [60, 'min'],
  [1, 's'],
];

/** A poll's duration: `85 ms`, `1.2 s`. */
function duration(ms: number): string {
  if (ms < 1) return '< 1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

export function counts(rows: readonly UnitStatus[]): string {
  return `${plural(rows.length, 'unit')}: ${tally(rows)}`;
}

/** `3 up, 1 failing, 2 pending, 2 with warnings` (the zero counts left out, but for up). */
export function tally(rows: readonly UnitStatus[]): string {
  let up = 0;
  let pending = 0;
  let warned = 0;
  for (const row of rows) {
    if (row.outcome === 'ok') up++;
    else if (row.outcome === 'pending') pending++;
    if (row.warnings.length > 0) warned++;
  }
  const failing = rows.length - up - pending;
  const parts = [`<span class="ok">${up} up</span>`];
  if (failing > 0) parts.push(`<span class="failing">${failing} failing</span>`);
  if (pending > 0) parts.push(`<span class="pending">${pending} pending</span>`);
  if (warned > 0) parts.push(`<span class="warned">${warned} with warnings</span>`);
  return parts.join(', ');
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
