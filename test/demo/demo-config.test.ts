import { describe, expect, it } from 'vitest';
import { loadFlagSettings } from '../../src/config/load.js';
import { summarizeConfig } from '../../src/config/summary.js';
import { demoConfig } from '../../src/demo/demo-config.js';

// `npm run demo` polls qstash_deliveries, opt-in elsewhere, so that the dashboard and the landing page
// show the simulated destinations' error ratio; --check-config's summary of it says what it costs.

describe('the demo configuration', () => {
  it('lists qstash_deliveries, on the events interval, and says its cost', () => {
    const config = demoConfig('http://127.0.0.1:1', loadFlagSettings({}));
    const [qstash] = config.qstash;
    expect(qstash?.sources as readonly string[] | undefined).toContain('qstash_deliveries');
    expect(summarizeConfig(config)).toContain(
      'qstash demo: qstash_deliveries every 10s reads 40s of deliveries (event_settle 30s)',
    );
  });
});
