// Passed to the test processes with --import (vitest.config.ts), whose worker threads inherit it, and to
// `npm run dashboards` (grafana/src is TypeScript too).
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
