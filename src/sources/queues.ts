import { gauge } from '../metrics/catalogue.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import { fetchQueues, type Queue } from '../upstash/queues.js';
import { polled, type SourceKind } from './source.js';

const POLLED = polled('queues');

const METRICS = {
  queues: gauge(
    'upstash_qstash_queues',
    `Queues upstream, including any omitted by max_queues (count). ${POLLED}`,
  ),
  queuesOmitted: gauge(
    'upstash_qstash_queues_omitted',
    `Queues not exported because of max_queues; the queues with the largest lag are kept (count). ${POLLED}`,
  ),
  lag: gauge('upstash_qstash_queue_lag', `Unprocessed messages in a queue (count). ${POLLED}`),
  parallelism: gauge('upstash_qstash_queue_parallelism', `Parallel consumers of a queue (count). ${POLLED}`),
  paused: gauge('upstash_qstash_queue_paused', `Whether a queue is paused (1 paused, 0 not). ${POLLED}`),
};

/** The queue samples of one account; above `limit`, the queues with the largest lag are kept. */
export function queueSamples(account: string, queues: readonly Queue[], limit: number): Sample[] {
  const kept = keepLargest(
    queues,
    limit,
    (q) => q.lag ?? 0,
    (q) => q.name,
  );
  const accountLabel = ['account', account] as const;
  const samples: Sample[] = [
    sample(METRICS.queues, [accountLabel], queues.length),
    sample(METRICS.queuesOmitted, [accountLabel], queues.length - kept.length),
  ];
  for (const queue of kept) {
    const labels = [accountLabel, ['queue', queue.name]] as const;
    // A figure is absent when Upstash sent it of the wrong type: no series, rather than a made-up 0.
    if (queue.lag !== undefined) samples.push(sample(METRICS.lag, labels, queue.lag));
    if (queue.parallelism !== undefined) samples.push(sample(METRICS.parallelism, labels, queue.parallelism));
    if (queue.paused !== undefined) samples.push(sample(METRICS.paused, labels, queue.paused ? 1 : 0));
  }
  return samples;
}

/** QStash queues: every queue's lag, parallelism and state, once per account. */
export const queues: SourceKind<'queues'> = {
  name: 'queues',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, limits, signal, deadline }) {
    const { entries, rejected } = await fetchQueues(client, { ...account, signal, deadline });
    return { samples: queueSamples(account.name, entries, limits.maxQueues), rejectedFields: rejected };
  },
};
