import { gauge } from '../metrics/catalogue.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import { fetchFlowControl, type FlowControlKey } from '../upstash/flow-control.js';
import { polled, type SourceKind } from './source.js';

const POLLED = polled('flow_control');

const METRICS = {
  waitListSize: gauge(
    'upstash_qstash_flow_control_wait_list_size',
    `Messages waiting in the wait list of a flow-control key (count). ${POLLED}`,
  ),
  keys: gauge(
    'upstash_qstash_flow_control_keys',
    `Flow-control keys upstream, including any omitted by max_flow_control_keys (count). ${POLLED}`,
  ),
  paused: gauge(
    'upstash_qstash_flow_control_paused',
    `Whether delivery of a flow-control key's messages is paused (1 paused, 0 not). ${POLLED}`,
  ),
  parallelismMax: gauge(
    'upstash_qstash_flow_control_parallelism_max',
    `Messages a flow-control key may run at once, for keys with a parallelism limit (count). ${POLLED}`,
  ),
  parallelismInUse: gauge(
    'upstash_qstash_flow_control_parallelism_in_use',
    `Messages of a flow-control key running now, for keys with a parallelism limit (count). ${POLLED}`,
  ),
  rateMax: gauge(
    'upstash_qstash_flow_control_rate_max',
    `Messages a flow-control key may dispatch per rate period, for keys with a rate limit (count). ${POLLED}`,
  ),
  rateDispatched: gauge(
    'upstash_qstash_flow_control_rate_dispatched',
    `Messages a flow-control key dispatched in the current rate period, for keys with a rate limit (count). ${POLLED}`,
  ),
  ratePeriod: gauge(
    'upstash_qstash_flow_control_rate_period_seconds',
    `Length of a flow-control key's rate period, for keys with a rate limit (seconds). ${POLLED}`,
  ),
  keysOmitted: gauge(
    'upstash_qstash_flow_control_keys_omitted',
    `Flow-control keys not exported because of max_flow_control_keys; the largest wait lists are kept (count). ${POLLED}`,
  ),
};

/**
 * The flow-control samples of one account. Above `limit` keys, the largest wait lists are kept
 * (ties broken by key, so the cut is stable from poll to poll) and the rest are counted as omitted.
 */
export function flowControlSamples(
  account: string,
  keys: readonly FlowControlKey[],
  limit: number,
): Sample[] {
  const kept = keepLargest(
    keys,
    limit,
    (k) => k.waitListSize,
    (k) => k.key,
  );
  // One label pair shared by all of an account's keys: ten thousand keys are common.
  const accountLabel = ['account', account] as const;
  const samples: Sample[] = [];
  for (const k of kept) {
    const labels = [accountLabel, ['flow_control_key', k.key]] as const;
    samples.push(sample(METRICS.waitListSize, labels, k.waitListSize));
    // A figure is absent when Upstash sent it of the wrong type: no series, rather than a made-up 0.
    if (k.paused !== undefined) samples.push(sample(METRICS.paused, labels, k.paused ? 1 : 0));
    if (k.parallelismMax !== undefined) {
      samples.push(sample(METRICS.parallelismMax, labels, k.parallelismMax));
      if (k.parallelismCount !== undefined)
        samples.push(sample(METRICS.parallelismInUse, labels, k.parallelismCount));
    }
    if (k.rateMax !== undefined) {
      samples.push(sample(METRICS.rateMax, labels, k.rateMax));
      if (k.rateCount !== undefined) samples.push(sample(METRICS.rateDispatched, labels, k.rateCount));
      if (k.ratePeriod !== undefined) samples.push(sample(METRICS.ratePeriod, labels, k.ratePeriod));
    }
  }
  samples.push(
    sample(METRICS.keys, [accountLabel], keys.length),
    sample(METRICS.keysOmitted, [accountLabel], keys.length - kept.length),
  );
  return samples;
}

/** QStash flow control: every key's wait list, once per account. */
export const flowControl: SourceKind<'flow_control'> = {
  name: 'flow_control',
  per: 'account',
  metrics: Object.values(METRICS),
  async poll({ client, account, limits, signal, deadline }) {
    const { entries, rejected } = await fetchFlowControl(client, { ...account, signal, deadline });
    return {
      samples: flowControlSamples(account.name, entries, limits.maxFlowControlKeys),
      rejectedFields: rejected,
    };
  },
};
