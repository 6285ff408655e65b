import { describe, expect, test } from 'vitest';
import { DEMO_SEARCH_INDEXES, type DemoIndex } from '../../src/demo/simulator.js';
import { valueOf } from '../helpers/exposition-parser.js';
import { eventually, useHarness, type Harness } from '../helpers/harness.js';

// The rerank quota on the landing page (docs/operations.md, The landing page): the Search listing
// states `max_monthly_reranks`, the index's stats the month's count; past 80 % the index's
// `search_stats` row says so, from the listing's latest word.

const FROZEN_NOW = Date.UTC(2026, 10, 1, 12, 0, 0);
const [PRODUCTS, BLOG] = DEMO_SEARCH_INDEXES as [DemoIndex, DemoIndex];

const start = useHarness({
  qstashSources: [],
  managementSources: ['search_indexes', 'search_stats'],
  sim: { frozen: true, now: () => FROZEN_NOW },
});

/** The landing page's rows (their `data-text`: source, account, name, ID, state, warnings). */
async function rows(h: Harness): Promise<string[]> {
  const { body } = await h.get('/?refresh=0');
  return [...body.matchAll(/<tr id="[^"]*" data-text="([^"]*)"/g)].map(([, text = '']) => text);
}

describe('the rerank quota on the landing page', () => {
  test('a Search index past 80 % of max_monthly_reranks says it; an unlimited one, or the same once unlimited, does not', async () => {
    const h = await start();
    const said = await eventually('the quota warning', async () => {
      const row = (await rows(h)).find((text) => text.startsWith('search_stats') && text.includes(BLOG.id));
      return row?.includes('monthly reranks at') === true ? row : undefined;
    });
    const { samples } = await h.scrape();
    const labels = { account: 'main', index_id: BLOG.id };
    const used = valueOf(samples, 'upstash_search_monthly_reranks', labels) ?? NaN;
    expect(valueOf(samples, 'upstash_search_max_monthly_reranks', labels)).toBe(1000);
    expect(used).toBeGreaterThan(800);
    expect(said).toContain(
      `monthly reranks at ${Math.floor(used / 10)} % of max_monthly_reranks (${used} of 1000)`,
    );
    const products = (await rows(h)).find(
      (text) => text.startsWith('search_stats') && text.includes(PRODUCTS.id),
    );
    expect(products).toBeDefined();
    expect(products).not.toContain('reranks');

    // The listing now says unlimited: the next stats poll reads it, without the unit being replaced.
    h.sim.setIndexes('search', [PRODUCTS, { ...BLOG, maxMonthlyReranks: -1 }]);
    await eventually('the warning gone', async () => {
      const row = (await rows(h)).find((text) => text.startsWith('search_stats') && text.includes(BLOG.id));
      return row !== undefined && !row.includes('reranks') ? true : undefined;
    });
  });
});
