import type { Answer } from './answer.js';
import { OneBody } from './bodies.js';
import { churnEpoch, defineEndpoint } from './endpoint.js';
import type { Endpoint, EndpointContext } from './endpoint.js';
import { between, hashString, mix, noise, TAU } from './noise.js';

/** A default flow-control key containing a quote, a backslash, a newline and non-ASCII text. */
export const DEMO_ODD_FLOW_CONTROL_KEY = 'tenant "café" \\ eu\nbatch';

/** One entry of the flow-control list, as QStash returns it. */
export interface FlowControlEntry {
  flowControlKey: string;
  waitListSize: number;
  parallelismMax?: number;
  parallelismCount?: number;
  rateMax?: number;
  rateCount?: number;
  ratePeriod?: number;
  isPaused?: boolean;
}

/** A default flow-control key whose delivery is paused, so its wait list never drains below a few. */
export const DEMO_PAUSED_FLOW_CONTROL_KEY = 'tenant-42';

/** Options of the simulated `GET /v2/flowControl/`. */
export interface FlowControlOptions {
  /** Number of generated flow-control keys; default 6. */
  flowControlKeys?: number;
  /** `object` (documented `{"flowControls": [...]}`, the default) or a bare `array`. */
  flowControlShape?: 'object' | 'array';
}

interface FlowKeyProfile {
  key: string;
  id: number;
  amplitude: number;
  periodMs: number;
  phase: number;
  parallelismMax: number;
  rateMax: number;
}

const NAMED_FLOW_KEYS = [
  'user-signup',
  DEMO_ODD_FLOW_CONTROL_KEY,
  'payments:stripe-webhooks',
  'email/digest',
  'tenant-42',
  'image-resize',
];

function flowKeyProfile(seed: number, index: number, key: string): FlowKeyProfile {
  const u = (salt: number): number => noise(seed, index, salt);
  return {
    key,
    id: mix(seed ^ hashString(key)),
    // Some keys stay nearly idle, the busy ones peak at 50.
    amplitude: u(1) < 0.3 ? 3 : Math.round(between(u(2), 10, 50)),
    periodMs: between(u(3), 2, 12) * 60_000,
    phase: u(4) * TAU,
    parallelismMax: [1, 2, 5, 10, 20][Math.floor(u(5) * 5)] ?? 5,
    rateMax: [10, 50, 100, 500][Math.floor(u(6) * 4)] ?? 100,
  };
}

/** Wait-list size of a key at time t: two waves and some jitter, clipped at zero so lists drain. */
function waitListSize(p: FlowKeyProfile, t: number): number {
  const wave =
    0.6 * Math.sin((TAU * t) / p.periodMs + p.phase) + 0.4 * Math.sin((TAU * t) / (p.periodMs * 0.29));
  const jitter = noise(p.id, Math.floor(t / 5000), 7) - 0.5;
  return Math.max(0, Math.round(p.amplitude * (wave + 0.25 * jitter)));
}

function flowEntry(p: FlowKeyProfile, t: number): FlowControlEntry {
  const paused = p.key === DEMO_PAUSED_FLOW_CONTROL_KEY;
  const size = paused ? Math.max(5, waitListSize(p, t)) : waitListSize(p, t);
  // A key with a backlog runs at its parallelism limit; a paused one runs nothing.
  const running = paused || size === 0 ? 0 : p.parallelismMax;
  const dispatched = paused ? 0 : Math.min(p.rateMax, size * 3);
  // Upstash omits zero values: no rateCount when nothing was dispatched, no isPaused unless paused.
  return {
    flowControlKey: p.key,
    waitListSize: size,
    parallelismMax: p.parallelismMax,
    parallelismCount: running,
    rateMax: p.rateMax,
    ...(dispatched > 0 && { rateCount: dispatched }),
    ratePeriod: 60,
    ...(paused && { isPaused: true }),
  };
}

function flowKeyName(index: number): string {
  return NAMED_FLOW_KEYS[index] ?? `queue-${String(index).padStart(5, '0')}`;
}

/** Generated flow-control list at time t. */
function generateFlowControl(
  profiles: readonly FlowKeyProfile[],
  seed: number,
  t: number,
  churn: boolean,
): FlowControlEntry[] {
  if (!churn) return profiles.map((p) => flowEntry(p, t));
  const epoch = churnEpoch(t);
  const kept = profiles.filter((p) => noise(seed, p.id, epoch) < 0.75);
  const fresh = Array.from({ length: Math.ceil(profiles.length / 4) }, (_, j) =>
    flowKeyProfile(seed, profiles.length + j, `batch-${epoch}-${j}`),
  );
  return [...kept, ...fresh].map((p) => flowEntry(p, t));
}

interface Growth {
  base: number;
  since: number;
  perMinute: number;
}

/** The flow-control list: generated keys (or a test's override), with any steadily growing wait lists. */
export class FlowControl implements Endpoint {
  readonly #ctx: EndpointContext;
  readonly #profiles: readonly FlowKeyProfile[];
  readonly #growth = new Map<string, Growth>();
  readonly #body: OneBody<readonly FlowControlEntry[]>;

  constructor(ctx: EndpointContext, options: FlowControlOptions) {
    this.#ctx = ctx;
    this.#profiles = Array.from({ length: options.flowControlKeys ?? NAMED_FLOW_KEYS.length }, (_, i) =>
      flowKeyProfile(ctx.seed, i, flowKeyName(i)),
    );
    const shape = options.flowControlShape ?? 'object';
    this.#body = new OneBody(ctx, (t, override) => {
      const entries = this.#entriesAt(t, override);
      return shape === 'array' ? entries : { flowControls: entries };
    });
  }

  /** Serve these entries instead of generated ones; `null` goes back to generated data. */
  setOverride(entries: readonly FlowControlEntry[] | null): void {
    this.#body.setOverride(entries);
  }

  /** Make a key's wait list grow steadily from its current size (added if absent); `null` stops it. */
  setGrowth(key: string, perMinute: number | null): void {
    const t = this.#ctx.now();
    if (perMinute === null) this.#growth.delete(key);
    else {
      const base =
        this.#entriesAt(t, this.#body.override).find((e) => e.flowControlKey === key)?.waitListSize ?? 0;
      this.#growth.set(key, { base, since: t, perMinute });
    }
    this.#body.changed();
  }

  /** The list now, in the configured shape. */
  answer(): Answer {
    return this.#body.answer();
  }

  /** The list at time t, growth applied. */
  #entriesAt(t: number, override: readonly FlowControlEntry[] | null): FlowControlEntry[] {
    const entries = override
      ? override.map((e) => ({ ...e }))
      : generateFlowControl(this.#profiles, this.#ctx.seed, t, this.#ctx.churn);
    for (const [key, g] of this.#growth) {
      const size = Math.max(0, Math.round(g.base + (g.perMinute * (t - g.since)) / 60_000));
      const entry = entries.find((e) => e.flowControlKey === key);
      if (entry) entry.waitListSize = size;
      else entries.push({ flowControlKey: key, waitListSize: size });
    }
    return entries;
  }
}

/** QStash `GET /v2/flowControl/`, with or without the trailing slash. */
export const flowControlEndpoint = defineEndpoint({
  name: 'flow_control',
  credential: 'bearer',
  path: '/v2/flowControl',
  // The documented object shape, whatever `flowControlShape` says.
  oversizeFrame: ['{"flowControls":[],"padding":"', '"}'],
  create: (ctx, options: FlowControlOptions) => new FlowControl(ctx, options),
});
