// Passed to the test processes with --import (vitest.config.ts); worker threads inherit it.
import { register } from 'node:module';

register('./ts-hooks.mjs', import.meta.url);
