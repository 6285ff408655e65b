import { describe, expect, it } from 'vitest';
import { landingPage, span, type SourceRow } from '../../src/server/landing-page.js';
import { unitLabels, type UnitKind } from '../../src/vocabulary.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

/** A unit that polled fine 12 s ago, in 85 ms, every 30 s, next in 18 s; `over` changes any of it. */
function row(
  source: string,
  account: string,
  kind: UnitKind = 'account',
  id = '',
  over: Partial<SourceRow> = {},
): SourceRow {
  return {
    id: `${source}/${account}/${id}`,
    labels: unitLabels(source, account, kind, id),
    name: '',
    lists: '',
    outcome: 'ok',
    error: '',
    lastPollAt: NOW - 12_000,
    lastSuccessAt: NOW - 12_000,
    lastDurationMs: 85,
    intervalMs: 30_000,
    nextPollAt: NOW + 18_000,
    notBefore: 0,
    running: false,
    stale: false,
    ...over,
  };
}

const page = (rows: readonly SourceRow[], ready = true, why = 'waiting for the first poll of every source') =>
  landingPage({
    rows,
    now: NOW,
    version: '1.2.3',
    revision: 'c0ffee',
    metricsPath: '/metrics',
    shard: '0 of 1',
    readiness: ready ? { ready } : { ready, why },
  });

/** The text of the page as a reader sees it: tags dropped, entities kept. */
const text = (html: string) => html.replace(/<[^>]*>/g, '');

describe('landing page', () => {
  it('groups by account then source, each sorted, and the units by name then ID', () => {
    const html = page([
      row('redis_stats', 'main', 'database', 'db-3', { name: 'zeta' }),
      row('flow_control', 'eu'),
      row('redis_stats', 'main', 'database', 'db-1', { name: 'alpha' }),
      row('databases', 'main'),
      row('redis_stats', 'main', 'database', 'db-2'),
      row('redis_stats', 'main', 'database', 'db-0', { name: 'alpha' }),
    ]);
    const order = (needles: string[]) => needles.map((needle) => html.indexOf(needle));
    const sorted = (positions: number[]) => {
      expect(positions.every((p) => p >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    };
    sorted(order(['Account <q>eu</q>', 'Account <q>main</q>']));
    sorted(order(['>flow_control', '>databases', '>redis_stats']));
    // By name (an unnamed unit by its ID), then by ID: alpha db-0, alpha db-1, db-2, zeta db-3.
    sorted(order(['>db-0<', '>db-1<', '>db-2<', '>db-3<']));
    expect(html).toContain('alpha<span class="id">db-1</span>');
    expect(html).toContain('<span class="id">db-2</span>');
    // The source's cell spans its units and counts them.
    expect(html).toMatch(/rowspan="4">redis_stats<small>4 units: <span class="ok">4 up<\/span><\/small>/);
  });

  it('shows per unit its outcome with the error, ages with their absolute time, duration, interval and next poll', () => {
    const html = page([
      row('flow_control', 'eu'),
      row('url_groups', 'eu', 'account', '', {
        outcome: 'unauthorized',
        error: 'unauthorized (HTTP 401)',
        lastSuccessAt: NOW - 3_725_000,
        stale: true,
      }),
      row('queues', 'eu', 'account', '', {
        outcome: 'pending',
        lastPollAt: undefined,
        lastSuccessAt: undefined,
        lastDurationMs: undefined,
        running: true,
      }),
      row('schedules', 'eu', 'account', '', {
        outcome: 'rate_limited',
        error: 'rate_limited (HTTP 429)',
        notBefore: NOW + 120_000,
      }),
    ]);
    expect(html).toContain(
      '<time datetime="2026-03-01T11:59:48.000Z" title="2026-03-01T11:59:48.000Z">12 s ago</time>',
    );
    expect(html).toContain('<td>85 ms</td><td>30 s</td>');
    expect(html).toContain('title="2026-03-01T12:00:18.000Z">in 18 s</time>');
    expect(html).toMatch(
      /<span class="state down">down<\/span><span class="detail">unauthorized \(HTTP 401\)<\/span><span class="detail">stale: its series were dropped<\/span><\/td><td><time [^>]*>1 h 2 min ago</,
    );
    expect(html).toMatch(
      /<span class="state wait">pending<\/span><span class="hint">polling now…<\/span><\/td><td><span class="muted">never<\/span><\/td><td><span class="muted">not yet<\/span>/,
    );
    // Upstash's Retry-After holds the next poll past the next tick.
    expect(html).toContain('>in 2 min</time> <span class="muted nowrap">(Retry-After)</span>');
  });

  it('says what a failing listing means for the units it discovers: none yet, or the last ones kept', () => {
    const failing = { outcome: 'unauthorized', error: 'unauthorized (HTTP 401)', lists: 'database' } as const;
    const never = text(
      page([row('databases', 'main', 'account', '', { ...failing, lastSuccessAt: undefined })]),
    );
    expect(never).toContain(
      'unauthorized (HTTP 401)No database known yet: their units appear after its first success.',
    );
    const before = text(page([row('databases', 'main', 'account', '', failing)]));
    expect(before).toContain('Each database it listed last is still polled.');
    expect(text(page([row('databases', 'main', 'account', '', { lists: 'database' })]))).not.toContain(
      'database known',
    );
  });

  it('a summary line at the top: units, up, failing, pending and readiness; shard, version, revision and links', () => {
    const rows = [
      row('flow_control', 'eu'),
      row('url_groups', 'eu', 'account', '', { outcome: 'timeout', error: 'timeout' }),
      row('queues', 'eu', 'account', '', { outcome: 'pending' }),
    ];
    const ready = text(page(rows, true));
    expect(ready).toContain('3 units: 1 up, 1 failing, 1 pending. Ready');
    expect(ready).toContain('Version 1.2.3 (revision c0ffee) · shard 0 of 1');
    expect(text(page(rows, false))).toContain('Not ready: waiting for the first poll of every source.');
    // While the poll worker is down, the page says so (not "Ready" with a crash-looping worker).
    expect(text(page(rows, false, 'the poll worker died and is restarting'))).toContain(
      'Not ready: the poll worker died and is restarting.',
    );
    const html = page(rows);
    expect(html).toContain('<a href="./metrics">/metrics</a>');
    for (const link of ['healthz', 'readyz']) expect(html).toContain(`<a href="${link}">/${link}</a>`);
    expect(html.indexOf('class="summary"')).toBeLessThan(html.indexOf('<table'));
    expect(html).not.toContain('<script');
    expect(text(page([]))).toContain('0 units: 0 up. Ready');
  });

  it('links to the metrics where --web.telemetry-path puts them, relative to the page', () => {
    const moved = (metricsPath: string) =>
      landingPage({
        rows: [],
        now: NOW,
        version: '1.2.3',
        metricsPath,
        shard: '0 of 1',
        readiness: { ready: true },
      });
    const html = moved('/prometheus/metrics');
    expect(html).toContain('<a href="./prometheus/metrics">/prometheus/metrics</a>');
    expect(html).not.toContain('href="metrics"');
    // A first segment with a colon stays a path, not a scheme `a:`.
    expect(moved('/a:b')).toContain('<a href="./a:b">/a:b</a>');
  });

  it('escapes every string it shows: names, IDs, account, source, error, version, revision and shard', () => {
    const hostile = `<script>alert("x")</script>'&`;
    const html = landingPage({
      rows: [
        row(hostile, hostile, 'database', hostile, { name: hostile, error: hostile, outcome: 'network' }),
        row('qstash_stats', 'eu', 'qstash_instance', `"><img src=x onerror=alert(1)>`, {
          name: `' onmouseover='x`,
        }),
      ],
      now: NOW,
      version: hostile,
      revision: hostile,
      metricsPath: hostile,
      shard: hostile,
      readiness: { ready: true },
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain(`' onmouseover='x`);
    expect(html).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#39;&#38;');
    // Every tag left is one of the page's own.
    const tags = new Set([...html.matchAll(/<\/?([a-z0-9!]+)/gi)].map((m) => m[1]?.toLowerCase()));
    const own = [
      '!doctype',
      'html',
      'head',
      'meta',
      'title',
      'style',
      'body',
      'header',
      'h1',
      'h2',
      'p',
      'a',
      'span',
      'time',
      'main',
      'section',
      'q',
      'small',
      'table',
      'thead',
      'tbody',
      'tr',
      'th',
      'td',
    ];
    expect([...tags].filter((tag) => tag !== undefined && !own.includes(tag))).toEqual([]);
  });

  it('is linear in the units: an account of 1,000 databases (3,000 units) is about 0.5 kB per unit', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [
      row('redis_stats', 'big', 'database', `db-${String(i).padStart(4, '0')}`, {
        name: `database-${999 - i}`,
      }),
      row('qstash_stats', 'big', 'qstash_instance', `q-${i}`, { name: 'eu-central-1' }),
      row('databases', `account-${i}`),
    ]).flat();
    const html = page(rows);
    expect(html.length / rows.length).toBeLessThan(600);
    expect(html.match(/<tr>/g)?.length).toBe(rows.length + 1001);
    // Sorted by name: database-0 (db-0999) comes first.
    expect(html.indexOf('>db-0999<')).toBeLessThan(html.indexOf('>db-0000<'));
  });

  it('spells a time span in its two largest units', () => {
    expect(span(0)).toBe('0 s');
    expect(span(59_999)).toBe('59 s');
    expect(span(60_000)).toBe('1 min');
    expect(span(245_000)).toBe('4 min 5 s');
    expect(span(3_600_000)).toBe('1 h');
    expect(span(3_725_000)).toBe('1 h 2 min');
    expect(span(2 * 86_400_000 + 4 * 3_600_000 + 59_000)).toBe('2 d 4 h');
  });
});
