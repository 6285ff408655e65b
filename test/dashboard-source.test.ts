// The dashboards are code (grafana/src, with Grafana's SDK): the committed JSON is exactly what the code
// makes (a golden file, since users, the chart and Compose read the JSON), and the move from the
// hand-written JSON lost nothing: test/fixtures/dashboard-summary.json holds the panels, queries,
// variables, units and titles of the hand-written files, summarized before they were replaced. A change
// meant to show something else updates it with `npx vitest run test/dashboard-source.test.ts -u`.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { build } from '../grafana/src/dashboard.js';
import { DASHBOARDS, DASHBOARDS_DIR, render } from '../grafana/src/render.js';
import { root } from './helpers/promql.js';
import { summarize, type Dashboard } from './helpers/dashboard-summary.js';

const lines = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe.each(Object.entries(DASHBOARDS))('grafana/dashboards/%s', (file, spec) => {
  it('is what `npm run dashboards` writes from grafana/src', async () => {
    const committed = readFileSync(new URL(file, DASHBOARDS_DIR), 'utf8');
    expect(
      committed,
      `grafana/dashboards/${file} is not what grafana/src makes: change grafana/src (not the JSON), then run \`npm run dashboards\` and commit both`,
    ).toBe(await render(file, spec));
  });
});

describe('grafana/src', () => {
  it('makes the panels, queries, variables, units and titles of the hand-written dashboards it replaced', async () => {
    const summaries = Object.fromEntries(
      Object.entries(DASHBOARDS).map(([file, spec]) => [
        file,
        summarize(JSON.parse(JSON.stringify(build(spec))) as Dashboard),
      ]),
    );
    await expect(`${JSON.stringify(summaries, null, 2)}\n`).toMatchFileSnapshot(
      './fixtures/dashboard-summary.json',
    );
  });

  it('makes every file of grafana/dashboards', () => {
    const files = readdirSync(DASHBOARDS_DIR).filter((f) => f.endsWith('.json'));
    expect(Object.keys(DASHBOARDS).sort()).toEqual(files.sort());
  });

  it('is at most a third of the JSON it makes, in lines', () => {
    const dir = new URL('grafana/src/', root);
    const source = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .reduce((n, f) => n + lines(readFileSync(new URL(f, dir), 'utf8')), 0);
    const json = Object.keys(DASHBOARDS).reduce(
      (n, f) => n + lines(readFileSync(new URL(f, DASHBOARDS_DIR), 'utf8')),
      0,
    );
    expect(source * 3, `${source} lines of TypeScript for ${json} of JSON`).toBeLessThanOrEqual(json);
  });
});
