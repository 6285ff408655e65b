import { createHash } from 'node:crypto';
import type { UnitStatus } from '../vocabulary.js';

/** Whether the exporter is ready, and why not, in words (/readyz's body, the landing page's summary). */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly why: string };

/** A row of the landing page: one polled unit, as the poller's status() gives it. */
export type SourceRow = UnitStatus;

/** What the landing page is made of; the page is a pure function of it. */
export interface LandingPageInput {
  readonly rows: readonly SourceRow[];
  /** Unix ms: ages and the next polls are counted from it. */
  readonly now: number;
  readonly version: string;
  /** The git commit built from; `unknown` when not given. */
  readonly revision?: string | undefined;
  /**
   * Where the metrics are served (`--web.telemetry-path`). Linked as `./path`: relative as the other
   * links (a proxy's path prefix is kept), and a path such as `/a:b` is not read as a URL scheme.
   */
  readonly metricsPath: string;
  /** Which shard this is, e.g. `0 of 1`. */
  readonly shard: string;
  /** What /readyz answers. */
  readonly readiness: Readiness;
  /** What the request asked to see; the whole page, refreshed every 30 s, when absent. */
  readonly view?: PageView | undefined;
}

/** What a request of the page asks for in its query (see {@link pageView}). */
export interface PageView {
  /** Rows shown: those whose text holds every word of it (case-insensitive); '' shows every row. */
  readonly filter: string;
  /** Seconds between refreshes; 0: none. */
  readonly refreshSeconds: number;
}

/** How often the page refreshes itself unless `?refresh=0` (or another number of seconds) says. */
export const DEFAULT_REFRESH_SECONDS = 30;
/** Characters of a filter kept: a query of any length does not make a page of any length. */
const MAX_FILTER_LENGTH = 100;
/** Units the "Needs attention" list names at most; the tables below show every one. */
const MAX_ATTENTION = 50;

/**
 * The view a request's query asks for: `filter=<words>`, `refresh=<seconds>` (0 turns it off; a
 * value that is not a whole number of seconds from 5 to 3600 keeps the default).
 */
export function pageView(query: string): PageView {
  const params = new URLSearchParams(query);
  const filter = Array.from((params.get('filter') ?? '').trim())
    .slice(0, MAX_FILTER_LENGTH)
    .join('');
  const refresh = params.get('refresh');
  const seconds = refresh === null || !/^\d{1,4}$/.test(refresh) ? NaN : Number(refresh);
  const refreshSeconds =
    seconds === 0 || (seconds >= 5 && seconds <= 3600) ? seconds : DEFAULT_REFRESH_SECONDS;
  return { filter, refreshSeconds };
}

/**
 * The HTML page at `/`, as Prometheus's /targets page shows targets: every unit grouped by account
 * then source, the failing first, then those whose data has trouble, then by name; its outcome with
 * the failure in words, its warnings, last success as an age, interval, next poll and duration.
 * Above them, the units that need attention. It works as static HTML: the filter is a form the
 * server answers (non-matching rows are `hidden`), the refresh a `<meta>`; a few lines of script,
 * allowed by the page's Content-Security-Policy by their hash, only filter as one types. Its cost
 * is one sort of the rows and about 0.5 kB of markup per unit: 3,000 units make about 1.7 MB.
 */
export function landingPage(input: LandingPageInput): string {
  const { rows, now } = input;
  const view = input.view ?? { filter: '', refreshSeconds: DEFAULT_REFRESH_SECONDS };
  const terms = searchTerms(view.filter);
  const accounts = groupRows(rows);
  const anchors = new Map<SourceRow, string>();
  const sections: string[] = [];
  for (const [account, sources] of accounts) {
    const all = sources.flatMap(([, units]) => units);
    sections.push(`<section><h2>Account <q>${escapeHtml(account)}</q> <small>${counts(all)}</small></h2>
<table>
<thead>${HEADER}</thead>`);
    for (const [source, units] of sources) {
      // A heading row per source, with its units' count: rows can be hidden by the filter without
      // taking a spanning cell with them.
      const head = `<tr class="group"><th scope="rowgroup" colspan="${COLUMNS}">${escapeHtml(source)}${units.length === 1 ? '' : `<small>${counts(units)}</small>`}</th></tr>`;
      const body = units.map((row) => {
        const anchor = `u${anchors.size}`;
        anchors.set(row, anchor);
        return rowHtml(row, now, anchor, terms);
      });
      sections.push(`<tbody>${head}\n${body.join('\n')}</tbody>`);
    }
    sections.push('</table></section>');
  }
  const failing = rows.filter(isFailing).length;
  const pending = rows.filter((row) => row.outcome === 'pending').length;
  const readiness = input.readiness.ready
    ? failing === 0
      ? `<span class="ok">Ready</span>: every unit has been polled once.`
      : // Ready is what /readyz says (every unit polled once); the colour says how the polls go.
        `<span class="${failing + pending === rows.length ? 'failing' : 'pending'}">Ready · ${failing} of ${plural(rows.length, 'unit')} failing</span>.`
    : `<span class="pending">Not ready</span>: ${escapeHtml(input.readiness.why)}.`;
  const summary = `${plural(rows.length, 'unit')}: ${tally(rows)}. ${readiness}`;
  const refreshing = view.refreshSeconds > 0;
  const query = (refresh: number): string => {
    const params = new URLSearchParams();
    if (view.filter !== '') params.set('filter', view.filter);
    if (refresh !== DEFAULT_REFRESH_SECONDS) params.set('refresh', String(refresh));
    const text = params.toString();
    return text === '' ? './' : `?${text}`;
  };
  const refreshNote = refreshing
    ? `Refreshes every ${view.refreshSeconds} s (<a href="${escapeHtml(query(0))}">stop</a>).`
    : `Not refreshing (<a href="${escapeHtml(query(DEFAULT_REFRESH_SECONDS))}">refresh every ${DEFAULT_REFRESH_SECONDS} s</a>).`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${refreshing ? `<meta http-equiv="refresh" content="${view.refreshSeconds}">\n` : ''}<title>Upstash exporter</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>Upstash exporter</h1>
<p>Version ${escapeHtml(input.version)} (revision ${escapeHtml(input.revision ?? 'unknown')}) · shard ${escapeHtml(input.shard)} · <a href=".${escapeHtml(input.metricsPath)}">${escapeHtml(input.metricsPath)}</a> · <a href="healthz">/healthz</a> · <a href="readyz">/readyz</a></p>
<p class="summary">${summary}</p>
<p class="note">As of <time datetime="${iso(now)}">${escapeHtml(iso(now))}</time>. ${refreshNote}</p>
<form class="filter" method="get" role="search"><label>Filter <input type="search" name="filter" value="${escapeHtml(view.filter)}" maxlength="${MAX_FILTER_LENGTH}" placeholder="source, account, name, ID or state" autocomplete="off"></label>${refreshing ? (view.refreshSeconds === DEFAULT_REFRESH_SECONDS ? '' : `<input type="hidden" name="refresh" value="${view.refreshSeconds}">`) : '<input type="hidden" name="refresh" value="0">'} <button>Filter</button></form></header>
<main>
${attention(rows, anchors, terms)}${sections.length === 0 ? '<p>No unit is polled by this shard.</p>' : sections.join('\n')}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The `<td>` columns of a unit's row. */
const COLUMNS = 7;

/** Whether the unit's last poll failed (neither `ok` nor `pending`). */
function isFailing(row: SourceRow): boolean {
  return row.outcome !== 'ok' && row.outcome !== 'pending';
}

/** The list of units that failed or whose data has trouble, each linked to its row; '' when none. */
function attention(
  rows: readonly SourceRow[],
  anchors: ReadonlyMap<SourceRow, string>,
  terms: readonly string[],
): string {
  const listed = [...anchors.keys()].filter((row) => isFailing(row) || row.warnings.length > 0);
  if (listed.length === 0) return '';
  // Failing units first, in the order of the tables below.
  listed.sort((a, b) => Number(isFailing(b)) - Number(isFailing(a)));
  const items = listed.slice(0, MAX_ATTENTION).map((row) => {
    const id = unitId(row);
    const unit = row.name !== '' ? `${row.name} (${id})` : id === '' ? 'whole account' : id;
    const what = [
      ...(isFailing(row) ? [`<span class="detail">${escapeHtml(row.error || row.outcome)}</span>`] : []),
      ...row.warnings.map((text) => `<span class="warning">${escapeHtml(text)}</span>`),
    ];
    return `<li${hiddenBy(row, terms)} data-text="${escapeHtml(searchText(row))}"><a href="#${anchors.get(row) ?? ''}">${escapeHtml(`${row.labels.account} · ${row.labels.source} · ${unit}`)}</a>${what.join('')}</li>`;
  });
  const more =
    listed.length > MAX_ATTENTION
      ? `<li class="muted">and ${listed.length - MAX_ATTENTION} more below</li>`
      : '';
  const failing = listed.filter(isFailing).length;
  return `<section class="attention"><h2>Needs attention <small>${failing} failing, ${listed.length - failing} up with warnings, of ${plural(rows.length, 'unit')}</small></h2>
<ul>${items.join('\n')}${more}</ul></section>
`;
}

/** What the filter looks in: source, account, name, ID, state, error and warnings, in lower case. */
function searchText(row: SourceRow): string {
  const state = row.outcome === 'ok' ? 'up' : row.outcome === 'pending' ? 'pending' : 'down failing';
  return [row.labels.source, row.labels.account, row.name, unitId(row), state, row.error, ...row.warnings]
    .join(' ')
    .toLowerCase();
}

/** The filter's words, in lower case. */
function searchTerms(filter: string): string[] {
  return filter
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== '');
}

/** ` hidden` when the row does not hold every word of the filter. */
function hiddenBy(row: SourceRow, terms: readonly string[]): string {
  if (terms.length === 0) return '';
  const text = searchText(row);
  return terms.every((term) => text.includes(term)) ? '' : ' hidden';
}

/**
 * Filters the rows as one types, as the server does for the form (every word, in lower case), and
 * keeps the filter in the address, so that the refresh keeps it too. Without it the form still works.
 */
const SCRIPT = [
  "const box=document.querySelector('input[name=filter]');",
  'const rows=[...document.querySelectorAll("[data-text]")];',
  'box.addEventListener("input",()=>{',
  'const terms=box.value.toLowerCase().split(/\\s+/).filter(Boolean);',
  'for(const r of rows)r.hidden=!terms.every(t=>r.dataset.text.includes(t));',
  'const url=new URL(location.href);',
  'if(box.value.trim())url.searchParams.set("filter",box.value.trim());else url.searchParams.delete("filter");',
  'history.replaceState(null,"",url);',
  '});',
].join('');

let csp: string | undefined;
/**
 * The page's Content-Security-Policy: nothing but its own style and script, allowed by their
 * hashes (no `unsafe-inline`), no frames around it, forms sent only to itself.
 */
export function landingPageCsp(): string {
  const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  csp ??= `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
  return csp;
}

const STYLE = [
  'body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}',
  'header{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:.8em 1.5em}',
  'h1{font-size:1.5em;margin:0 0 .3em}',
  'header p{margin:.2em 0}',
  '.summary{font-size:1.1em}',
  '.note{color:#59636e;font-size:.9em}',
  'main{padding:0 1.5em 2em}',
  'h2{font-size:1.25em;margin:1.2em 0 .4em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}',
  'h2 small{font-weight:normal;font-size:.75em;color:#59636e;margin-left:.5em}',
  'table{border-collapse:collapse;width:100%}',
  'th,td{border-bottom:1px solid #e4e7eb;padding:.35em .6em;text-align:left;vertical-align:top}',
  'th{background:#f6f8fa;font-weight:600;white-space:nowrap}',
  'td.unit{width:28%}',
  '.id{display:block;font:.85em ui-monospace,monospace;color:#59636e;word-break:break-all}',
  '.whole{color:#59636e;font-style:italic}',
  '.state{display:inline-block;padding:0 .5em;border-radius:1em;font-weight:600;font-size:.9em}',
  '.up{background:#dafbe1;color:#116329}',
  '.down{background:#ffebe9;color:#a40e26}',
  '.wait{background:#eaeef2;color:#424a53}',
  '.ok{color:#116329;font-weight:600}',
  '.pending{color:#9a6700;font-weight:600}',
  '.failing{color:#a40e26;font-weight:600}',
  '.warned{color:#9a6700;font-weight:600}',
  '.detail{display:block;color:#a40e26;font-size:.9em}',
  '.muted{color:#59636e}',
  '.hint{display:block;color:#59636e;font-size:.9em;max-width:22em}',
  'time,.nowrap{white-space:nowrap}',
  '.warning{display:block;color:#9a6700;font-size:.9em}',
  '.warning::before{content:"⚠ "}',
  'tr.group th{font:600 .95em ui-monospace,monospace;background:#f6f8fa;border-top:2px solid #d0d7de}',
  'tr.group small{font:normal .9em system-ui,sans-serif;color:#59636e;margin-left:.8em}',
  '.filter{margin:.5em 0 0}',
  '.filter input{font:inherit;width:22em;max-width:60vw}',
  '.attention{border:1px solid #d4a72c;background:#fff8c5;border-radius:6px;padding:0 1em .5em;margin-top:1em}',
  '.attention h2{border:0}',
  '.attention ul{margin:0;padding-left:1.2em}',
  '.attention li{margin:.2em 0}',
  '.attention .detail,.attention .warning{display:inline;margin-left:.6em}',
  '[hidden]{display:none!important}',
].join('\n');

const HEADER = `<tr>${['Unit', 'State', 'Last success', 'Last poll', 'Duration', 'Interval', 'Next poll']
  .map((name) => `<th>${name}</th>`)
  .join('')}</tr>`;

/** The rows by account, then by source, each level sorted, the units failing first, then by name and ID. */
function groupRows(rows: readonly SourceRow[]): [string, [string, SourceRow[]][]][] {
  const accounts = new Map<string, Map<string, SourceRow[]>>();
  for (const row of rows) {
    let sources = accounts.get(row.labels.account);
    if (sources === undefined) {
      sources = new Map<string, SourceRow[]>();
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
        .map(([source, units]) => [source, units.sort(byUnit)] as [string, SourceRow[]]),
    ]);
}

function byKey(a: readonly [string, unknown], b: readonly [string, unknown]): number {
  return compare(a[0], b[0]);
}

/**
 * The failing first, then those with warnings, then the rest; each by name (a unit without one by
 * its ID), then by ID: a fixed order, whatever the locale.
 */
function byUnit(a: SourceRow, b: SourceRow): number {
  return (
    rank(a) - rank(b) || compare(a.name || unitId(a), b.name || unitId(b)) || compare(unitId(a), unitId(b))
  );
}

function rank(row: SourceRow): number {
  return isFailing(row) ? 0 : row.warnings.length > 0 ? 1 : 2;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The unit's ID (a database, QStash instance or index ID); '' for an account-wide unit. */
function unitId(row: SourceRow): string {
  return row.labels.database_id || row.labels.qstash_id || row.labels.index_id;
}

function rowHtml(row: SourceRow, now: number, anchor: string, terms: readonly string[]): string {
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

function stateHtml(row: SourceRow): string {
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

function nextPoll(row: SourceRow, now: number): string {
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

function counts(rows: readonly SourceRow[]): string {
  return `${plural(rows.length, 'unit')}: ${tally(rows)}`;
}

/** `3 up, 1 failing, 2 pending, 2 with warnings` (the zero counts left out, but for up). */
function tally(rows: readonly SourceRow[]): string {
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

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
