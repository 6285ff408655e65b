// The dashboards are code (grafana/src, with Grafana's SDK): the committed JSON is exactly what the code
// makes, the one golden file of what they show (users, the chart and Compose read it), so a change to a
// panel is reviewed as its diff (docs/dashboards.md, How they are checked).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DASHBOARDS, DASHBOARDS_DIR, render } from '../grafana/src/render.js';
import { root } from './helpers/promql.js';

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
