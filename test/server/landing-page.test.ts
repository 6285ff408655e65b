import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  DEFAULT_REFRESH_SECONDS,
  landingPage,
  landingPageCsp,
  pageView,
  type PageView,
  type SourceRow,
} from '../../src/server/landing-page.js';
import { span } from '../../src/server/unit-rows.js';
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
    warnings: [],
    ...over,
  };
}

const page = (
  rows: readonly SourceRow[],
  ready = true,
  why = 'waiting for the first poll of every source',
  view?: PageView,
) =>
  landingPage({
    rows,
    now: NOW,
    version: '1.2.3',
    revision: 'c0ffee',
    metricsPath: '/metrics',
    shard: '0 of 1',
    readiness: ready ? { ready } : { ready, why },
    view,
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
    // The source's heading row counts its units.
    expect(html).toContain(
      '<tr class="group"><th scope="rowgroup" colspan="7">redis_stats<small>4 units: <span class="ok">4 up</span></small></th></tr>',
    );
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
    // One script, the page's own (see the CSP test).
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(text(page([]))).toContain('0 units: 0 up. Ready');
  });

  it('links to the metrics where --web.telemetry-path puts them, relative to the page', () => {
    const moved = (metricsPath: string) =>
      landingPage({
        rows: [],
        now: NOW,
        version: '1.2.3',
        revision: 'c0ffee',
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
    // The page's own script, and no other.
    expect(html.match(/<script>/g)).toHaveLength(1);
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
      'form',
      'label',
      'input',
      'button',
      'ul',
      'li',
      'script',
    ];
    expect([...tags].filter((tag) => tag !== undefined && !own.includes(tag))).toEqual([]);
  });

  it('is linear in the units: an account of 1,000 databases (3,000 units) is about 0.6 kB per unit', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => [
      row('redis_stats', 'big', 'database', `db-${String(i).padStart(4, '0')}`, {
        name: `database-${999 - i}`,
      }),
      row('qstash_stats', 'big', 'qstash_instance', `q-${i}`, { name: 'eu-central-1' }),
      row('databases', `account-${i}`),
    ]).flat();
    const html = page(rows);
    expect(html.length / rows.length).toBeLessThan(650);
    expect(html.match(/<tr id=/g)?.length).toBe(rows.length);
    // Sorted by name: database-0 (db-0999) comes first.
    expect(html.indexOf('>db-0999<')).toBeLessThan(html.indexOf('>db-0000<'));
  });

  it('shows trouble in the data of a unit that is up, with its reasons, and lists it under "Needs attention"', () => {
    const html = page([
      row('flow_control', 'eu'),
      row('schedules', 'eu', 'account', '', {
        warnings: ['1 schedule failing (last run failed): scd-billing'],
      }),
      row('redis_stats', 'main', 'database', 'db-1', {
        name: 'legacy',
        warnings: ['field rejected (wrong type upstream, skipped): total_monthly_requests'],
      }),
    ]);
    expect(html).toMatch(
      /<span class="state up">up<\/span><span class="warning">1 schedule failing \(last run failed\): scd-billing<\/span>/,
    );
    expect(text(html)).toContain('3 units: 3 up, 2 with warnings. Ready: every unit has been polled once.');
    const attention = /<section class="attention">[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(text(attention)).toContain('Needs attention 0 failing, 2 up with warnings, of 3 units');
    expect(attention).toContain('main · redis_stats · legacy (db-1)</a>');
    expect(attention).toContain('total_monthly_requests');
    expect(attention).not.toContain('flow_control');
    // Each item links to its unit's row.
    for (const [, anchor] of attention.matchAll(/href="#(u\d+)"/g))
      expect(html).toContain(`<tr id="${anchor}"`);
    expect(page([row('flow_control', 'eu')])).not.toContain('class="attention"');
  });

  it('names index units by their name and ID, not "whole account"', () => {
    const html = page([
      row('vector_stats', 'main', 'vector_index', 'idx-v1', { name: 'embeddings' }),
      row('search_stats', 'main', 'search_index', 'idx-s1', { name: 'docs' }),
    ]);
    expect(html).toContain('embeddings<span class="id">idx-v1</span>');
    expect(html).toContain('docs<span class="id">idx-s1</span>');
    expect(html).not.toContain('whole account');
  });

  it('puts the failing units first in each source, then those with warnings, then by name', () => {
    const html = page([
      row('redis_stats', 'main', 'database', 'db-a', { name: 'a' }),
      row('redis_stats', 'main', 'database', 'db-b', { name: 'b', warnings: ['x'] }),
      row('redis_stats', 'main', 'database', 'db-c', {
        name: 'c',
        outcome: 'network',
        error: 'network: connection refused',
      }),
    ]);
    const table = html.slice(html.indexOf('<table'));
    const positions = ['>db-c<', '>db-b<', '>db-a<'].map((needle) => table.indexOf(needle));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);
    expect(html).toContain('<span class="detail">network: connection refused</span>');
  });

  it('is not a green "Ready" while units fail: red when all fail, amber when some do', () => {
    const failing = { outcome: 'network', error: 'network: connection refused' };
    const all = page([
      row('flow_control', 'eu', 'account', '', failing),
      row('queues', 'eu', 'account', '', failing),
    ]);
    expect(all).toContain('<span class="failing">Ready · 2 of 2 units failing</span>');
    expect(all).not.toContain('<span class="ok">Ready</span>');
    const some = page([row('flow_control', 'eu', 'account', '', failing), row('queues', 'eu')]);
    expect(some).toContain('<span class="pending">Ready · 1 of 2 units failing</span>');
    expect(page([row('queues', 'eu')])).toContain('<span class="ok">Ready</span>');
  });

  it('filters rows by every word given, as the script does, hiding the others in static HTML', () => {
    const rows = [
      row('flow_control', 'eu'),
      row('redis_stats', 'main', 'database', 'db-1', {
        name: 'orders',
        outcome: 'timeout',
        error: 'timeout',
      }),
      row('redis_stats', 'main', 'database', 'db-2', { name: 'sessions' }),
    ];
    const html = page(rows, true, '', { filter: 'REDIS down', refreshSeconds: 0 });
    const shown = [...html.matchAll(/<tr id="u\d+"( hidden)? data-text="([^"]*)"/g)]
      .filter((m) => m[1] === undefined)
      .map((m) => m[2]);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toContain('orders');
    expect(html).toContain('value="REDIS down"');
    // The form keeps the refresh off.
    expect(html).toContain('<input type="hidden" name="refresh" value="0">');
  });

  it('refreshes itself every 30 s unless ?refresh=0, and says how to stop or restart it', () => {
    expect(DEFAULT_REFRESH_SECONDS).toBe(30);
    const on = page([row('flow_control', 'eu')]);
    expect(on).toContain('<meta http-equiv="refresh" content="30">');
    expect(on).toContain('Refreshes every 30 s (<a href="?refresh=0">stop</a>)');
    const off = page([row('flow_control', 'eu')], true, '', { filter: 'eu', refreshSeconds: 0 });
    expect(off).not.toContain('http-equiv="refresh"');
    expect(off).toContain('Not refreshing (<a href="?filter=eu">refresh every 30 s</a>)');
  });

  it('reads its view from the query, bounded: filter cut to 100 characters, refresh 0 or 5 to 3600 s', () => {
    expect(pageView('')).toEqual({ filter: '', refreshSeconds: 30 });
    expect(pageView('refresh=0')).toEqual({ filter: '', refreshSeconds: 0 });
    expect(pageView('refresh=60&filter=%20redis%20')).toEqual({ filter: 'redis', refreshSeconds: 60 });
    for (const bad of ['refresh=1', 'refresh=-5', 'refresh=abc', 'refresh=99999', 'refresh=1e3'])
      expect(pageView(bad).refreshSeconds).toBe(30);
    expect(pageView(`filter=${'x'.repeat(5000)}`).filter).toHaveLength(100);
  });

  it('allows its own style and script by their hashes in its Content-Security-Policy, nothing inline else', () => {
    const html = page([row('flow_control', 'eu')]);
    const csp = landingPageCsp();
    const hash = (tag: string) => {
      const body = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)?.[1] ?? '';
      return `'sha256-${createHash('sha256').update(body).digest('base64')}'`;
    };
    expect(csp).toContain(`style-src ${hash('style')};`);
    expect(csp).toContain(`script-src ${hash('script')};`);
    expect(csp).toMatch(/^default-src 'none';/);
    expect(csp).not.toContain('unsafe');
    // No inline handler or style attribute, which a hash does not allow.
    expect(html).not.toMatch(/\son[a-z]+=|\sstyle=/);
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
