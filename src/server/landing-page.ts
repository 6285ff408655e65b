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
}

/**
 * The HTML page at `/`, as Prometheus's /targets page shows targets: every unit grouped by account
 * then source, sorted by name, with its outcome and safe error detail, last success as an age,
 * interval, next poll and duration. Static HTML, no script. Its cost is one sort of the rows and
 * about 0.5 kB of markup per unit: 3,000 units (1,000 databases) make about 1.5 MB.
 */
export function landingPage(input: LandingPageInput): string {
  const { rows, now } = input;
  const accounts = groupRows(rows);
  const sections: string[] = [];
  for (const [account, sources] of accounts) {
    const all = sources.flatMap(([, units]) => units);
    sections.push(`<section><h2>Account <q>${escapeHtml(account)}</q> <small>${counts(all)}</small></h2>
<table>
<thead>${HEADER}</thead>`);
    for (const [source, units] of sources) {
      // The source's cell spans its units, with their count, as Prometheus heads each job's targets.
      const head = `<th scope="rowgroup" rowspan="${units.length}">${escapeHtml(source)}${units.length === 1 ? '' : `<small>${counts(units)}</small>`}</th>`;
      sections.push(
        `<tbody>${units.map((row, index) => rowHtml(row, now, index === 0 ? head : '')).join('\n')}</tbody>`,
      );
    }
    sections.push('</table></section>');
  }
  const summary = `${plural(rows.length, 'unit')}: ${tally(rows)}. ${
    input.readiness.ready
      ? '<span class="ok">Ready</span>: every unit has been polled once.'
      : `<span class="pending">Not ready</span>: ${escapeHtml(input.readiness.why)}.`
  }`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Upstash exporter</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>Upstash exporter</h1>
<p>Version ${escapeHtml(input.version)} (revision ${escapeHtml(input.revision ?? 'unknown')}) · shard ${escapeHtml(input.shard)} · <a href=".${escapeHtml(input.metricsPath)}">${escapeHtml(input.metricsPath)}</a> · <a href="healthz">/healthz</a> · <a href="readyz">/readyz</a></p>
<p class="summary">${summary}</p>
<p class="note">As of <time datetime="${iso(now)}">${escapeHtml(iso(now))}</time>. Reload the page to refresh it.</p></header>
<main>
${sections.length === 0 ? '<p>No unit is polled by this shard.</p>' : sections.join('\n')}
</main>
</body>
</html>
`;
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
  'tbody th{width:1%;font:600 .95em ui-monospace,monospace;white-space:nowrap;background:#fff;border-right:1px solid #e4e7eb}',
  'tbody th small{display:block;font:normal .85em system-ui,sans-serif;color:#59636e}',
  'tbody{border-top:2px solid #d0d7de}',
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
  '.detail{display:block;color:#a40e26;font-size:.9em}',
  '.muted{color:#59636e}',
  '.hint{display:block;color:#59636e;font-size:.9em;max-width:22em}',
  'time,.nowrap{white-space:nowrap}',
].join('\n');

const HEADER = `<tr>${[
  'Source',
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

/** The rows by account, then by source, each level sorted, the units by name then ID. */
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

/** By name (a unit without one by its ID), then by ID: a fixed order, whatever the locale. */
function byUnit(a: SourceRow, b: SourceRow): number {
  return compare(a.name || unitId(a), b.name || unitId(b)) || compare(unitId(a), unitId(b));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The unit's ID (a database or QStash instance ID); '' for an account-wide unit. */
function unitId(row: SourceRow): string {
  return row.labels.database_id || row.labels.qstash_id;
}

function rowHtml(row: SourceRow, now: number, head: string): string {
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
  return `<tr>${head}${cells.join('')}</tr>`;
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

/** `3 up, 1 failing, 2 pending` (the zero counts left out, but for up). */
function tally(rows: readonly SourceRow[]): string {
  let up = 0;
  let pending = 0;
  for (const row of rows) {
    if (row.outcome === 'ok') up++;
    else if (row.outcome === 'pending') pending++;
  }
  const failing = rows.length - up - pending;
  const parts = [`<span class="ok">${up} up</span>`];
  if (failing > 0) parts.push(`<span class="failing">${failing} failing</span>`);
  if (pending > 0) parts.push(`<span class="pending">${pending} pending</span>`);
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
