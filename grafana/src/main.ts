// `npm run dashboards`: writes grafana/dashboards/*.json from the code beside this file.
import { writeFileSync } from 'node:fs';
import { DASHBOARDS, DASHBOARDS_DIR, render } from './render.js';

for (const [file, spec] of Object.entries(DASHBOARDS)) {
  const url = new URL(file, DASHBOARDS_DIR);
  writeFileSync(url, await render(file, spec));
  console.error(`wrote ${url.pathname}`);
}
