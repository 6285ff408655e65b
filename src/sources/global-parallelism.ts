import { gauge } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchGlobalParallelism, type GlobalParallelism } from '../upstash/global-parallelism.js';
import { polled, type SourceKind } from './source.js';

const POLLED = polled('global_parallelism');

const METRICS = {
  max: gauge(
    'upstash_qstash_global_parallelism_max',
    `Messages the account may run at once across all flow-control keys (count). ${POLLED}`,
  ),
  inUse: gauge(
    'upstash_qstash_global_parallelism_in_use',
    `Messages running at once across all flow-control keys (count). ${POLLED}`,
  ),
};

/** The global parallelism samples of one account. */
export function globalParallelismSamples(account: string, parallelism: GlobalParallelism): Sample[] {
  const labels = [['account', account]] as const;
  const samples: Sample[] = [];
  if (parallelism.max !== undefined) samples.push(sample(METRICS.max, labels, parallelism.max));
  samples.push(sample(METRICS.inUse, labels, parallelism.inUse));
  return samples;
}

/** QStash global parallelism: its maximum and the messages running now, once per account. */
export const globalParallelism: SourceKind<'global_parallelism'> = {
  name: 'global_parallelism',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, signal, deadline }) {
    return {
      samples: globalParallelismSamples(
        account.name,
        await fetchGlobalParallelism(client, { ...account, signal, deadline }),
      ),
    };
  },
};
