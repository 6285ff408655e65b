import { createHash } from 'node:crypto';
import type { UnitStatus } from '../vocabulary.js';
import {
  COLUMNS,
  counts,
  escapeHtml,
  groupRows,
  HEADER,
  hiddenBy,
  isFailing,
  iso,
  plural,
  rowHtml,
  searchTerms,
  searchText,
  tally,
  unitId,
} from './unit-rows.js';

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
  /** The git commit built from, as src/version.ts reads it (`unknown` there when none was recorded). */
  readonly revision: string;
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
<p>Version ${escapeHtml(input.version)} (revision ${escapeHtml(input.revision)}) · shard ${escapeHtml(input.shard)} · <a href=".${escapeHtml(input.metricsPath)}">${escapeHtml(input.metricsPath)}</a> · <a href="healthz">/healthz</a> · <a href="readyz">/readyz</a></p>
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
