import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { Secret } from '../../src/config/secret.js';
import {
  DEFAULTS,
  type Config,
  type FamilySelection,
  type HttpSettings,
  type Limits,
  type ManagementAccount,
  type ManagementSourceName,
  type QstashSourceName,
} from '../../src/config/types.js';
import {
  DEMO_DLQ_CALLER_IP,
  DEMO_DLQ_SECRET,
  DEMO_EVENT_CALLER_IP,
  DEMO_EVENT_SECRET,
  DEMO_QSTASH_INSTANCES,
  DEMO_SCHEDULE_SECRET,
  DEMO_SEARCH_INDEXES,
  DEMO_VECTOR_INDEXES,
  demoIndexToken,
  demoInstanceToken,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../src/demo/simulator.js';
import { createLogger } from '../../src/logger.js';
import type { LogLevel } from '../../src/config/types.js';
import { parseExposition, type ParsedSample } from './exposition-parser.js';

// Credentials no output may ever contain; distinctive, so a leak cannot hide behind a common word.
export const QSTASH_TOKEN = 'qstash-tok-7Hq2ZxSECRETb41f';
export const EMAIL = 'ops@example.com';
export const API_KEY = 'mgmt-key-K9vLSECRETp03w';
export const DATABASES = ['db-alpha', 'db-beta'];

/**
 * Every form in which a credential could leak: raw, and inside the Basic header we send; the tokens
 * the QStash instance listing and the Vector and Search index listings carry; and the secret the
 * simulated schedules hold in their destination, headers and body.
 */
export const SECRET_FORMS = [
  QSTASH_TOKEN,
  API_KEY,
  Buffer.from(`${EMAIL}:${API_KEY}`).toString('base64'),
  `Bearer ${QSTASH_TOKEN}`,
  ...DEMO_QSTASH_INSTANCES.flatMap((i) => [demoInstanceToken(i.id), demoInstanceToken(i.id, true)]),
  ...[...DEMO_VECTOR_INDEXES, ...DEMO_SEARCH_INDEXES].flatMap((i) => [
    demoIndexToken(i.id),
    demoIndexToken(i.id, true),
  ]),
  // Any index token, also of indexes a test makes up: the simulator marks them all alike.
  'SIMULATED-INDEX-',
  DEMO_SCHEDULE_SECRET,
  DEMO_DLQ_SECRET,
  DEMO_DLQ_CALLER_IP,
  DEMO_EVENT_SECRET,
  DEMO_EVENT_CALLER_IP,
];

/** A running exporter on loopback, polling a simulator, with its log lines captured. */
export interface Harness {
  readonly sim: Simulator;
  readonly app: App;
  readonly config: Config;
  readonly base: string;
  readonly address: AddressInfo;
  readonly logs: string[];
  /** GET a path of the exporter: status, body, headers and how long it took. */
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
  /** GET /metrics and parse it. */
  scrape(): Promise<{ samples: ParsedSample[]; ms: number; text: string }>;
  stop(): Promise<void>;
}

export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly ms: number;
}

export interface HarnessOptions {
  /** Where the metrics are served (`--web.telemetry-path`); default /metrics. */
  readonly telemetryPath?: string;
  readonly sim?: SimulatorOptions;
  /** Seconds between polls; the cron ticks on multiples of it. */
  readonly intervalSeconds?: number;
  /** Seconds between polls of the DLQ sources (`dlq_interval`); default `intervalSeconds`. */
  readonly dlqIntervalSeconds?: number;
  readonly http?: Partial<HttpSettings>;
  readonly limits?: Partial<Limits>;
  readonly logLevel?: LogLevel;
  readonly webConfigFile?: string;
  readonly webEnableLifecycle?: boolean;
  readonly metrics?: FamilySelection;
  /** What a reload over HTTP reads; the running configuration by default. */
  readonly loadConfig?: () => Config;
  /** Accounts: default one QStash account (both sources) and one management account. */
  readonly qstashAccounts?: number;
  readonly databases?: readonly string[];
  /** Management sources; default both (`databases` and `redis_stats`). */
  readonly managementSources?: readonly ManagementSourceName[];
  /** Discover the databases from the listing instead of configuring `databases`. */
  readonly discover?: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** QStash sources; default the seed two, `flow_control` and `url_groups`. */
  readonly qstashSources?: readonly QstashSourceName[];
  /** The qstash entry's `workflow_lookback` (ms); default 1h. The event sources run on the DLQ schedule. */
  readonly workflowLookbackMs?: number;
  /** The qstash entry's `labels:` (none by default) and `exemplars:` (on by default). */
  readonly labels?: readonly string[];
  readonly exemplars?: boolean;
  /** The management entry's own schedules (`backups_interval`); default each the entry's interval. */
  readonly managementSchedules?: Partial<ManagementAccount['ownSchedules']>;
}

/** Builds the Config object the exporter runs on, pointing at `url`. */
export function testConfig(url: string, options: HarnessOptions = {}): Config {
  const seconds = options.intervalSeconds ?? 1;
  const schedule = { cron: `*/${seconds} * * * * *`, intervalMs: seconds * 1000 };
  const dlqSeconds = options.dlqIntervalSeconds ?? seconds;
  const dlqSchedule = { cron: `*/${dlqSeconds} * * * * *`, intervalMs: dlqSeconds * 1000 };
  const qstashAccounts = options.qstashAccounts ?? 1;
  return {
    listenAddress: '127.0.0.1:0',
    telemetryPath: options.telemetryPath ?? '/metrics',
    logLevel: options.logLevel ?? 'debug',
    logFormat: 'json',
    sharding: { shard: 0, total: 1 },
    webConfigFile: options.webConfigFile,
    webEnableLifecycle: options.webEnableLifecycle ?? false,
    metrics: options.metrics ?? { allow: [], deny: [] },
    http: {
      // Not the subject of the tests that take it: long enough that a busy machine's slow answer is
      // never counted as a timeout. A test about timeouts sets its own.
      timeoutMs: 10_000,
      retries: 1,
      concurrency: 4,
      maxBodyBytes: DEFAULTS.http.maxBodyBytes,
      ...options.http,
    },
    limits: { ...DEFAULTS.limits, ...options.limits },
    qstash: Array.from({ length: qstashAccounts }, (_, i) => ({
      name: qstashAccounts === 1 ? 'eu' : `eu-${i}`,
      url,
      token: new Secret(QSTASH_TOKEN),
      schedule,
      sources: options.qstashSources ?? (['flow_control', 'url_groups'] as const),
      ownSchedules: { dlq: dlqSchedule, events: dlqSchedule },
      workflowLookbackMs: options.workflowLookbackMs ?? DEFAULTS.workflowLookback.defaultMs,
      labels: options.labels ?? [],
      exemplars: options.exemplars ?? true,
    })),
    management: [
      {
        name: 'main',
        url,
        email: EMAIL,
        apiKey: new Secret(API_KEY),
        databases: options.discover === true ? undefined : (options.databases ?? DATABASES),
        include: options.include ?? [],
        exclude: options.exclude ?? [],
        schedule,
        sources: options.managementSources ?? ['databases', 'redis_stats'],
        ownSchedules: { backups: schedule, audit: schedule, ...options.managementSchedules },
      },
    ],
    origin: 'test',
  };
}

/** Starts a simulator and the real exporter (createApp) against it. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({
    qstashToken: QSTASH_TOKEN,
    email: EMAIL,
    apiKey: API_KEY,
    databases: options.databases ?? DATABASES,
    ...options.sim,
  });
  const logs: string[] = [];
  const logger = createLogger(options.logLevel ?? 'debug', {
    write: (line: string) => {
      logs.push(line);
    },
  });
  const config = testConfig(sim.url, options);
  const app = createApp(config, {
    logger,
    version: '0.0.0-test',
    revision: 'unknown',
    ...(options.loadConfig === undefined ? {} : { loadConfig: options.loadConfig }),
  });
  const address = await app.start();
  const base = `http://127.0.0.1:${address.port}`;
  const get = (path: string, headers: Record<string, string> = {}): Promise<Reply> =>
    httpGet(`${base}${path}`, headers);
  let stopped: Promise<void> | undefined;
  return {
    sim,
    app,
    config,
    base,
    address,
    logs,
    get,
    async scrape() {
      const reply = await get('/metrics');
      if (reply.status !== 200) throw new Error(`/metrics answered ${reply.status}`);
      return { samples: parseExposition(reply.body), ms: reply.ms, text: reply.body };
    },
    // Once: a test may stop a harness itself, and the one that started it stops it again after.
    stop() {
      stopped ??= (async () => {
        await app.stop();
        await sim.stop();
      })();
      return stopped;
    },
  };
}

/**
 * For a test file whose tests each run their own exporter: returns a `start` that starts one with
 * `defaults` under the test's options (a shallow merge: an option given replaces the default whole),
 * and stops every harness it started after each test, passed or failed.
 */
export function useHarness(defaults: HarnessOptions = {}): (options?: HarnessOptions) => Promise<Harness> {
  const running: Harness[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((h) => h.stop()));
  });
  return async (options = {}) => {
    const h = await startHarness({ ...defaults, ...options });
    running.push(h);
    return h;
  };
}

/** A GET over a fresh connection (no pooling, so one slow answer cannot queue another). */
export function httpGet(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return httpCall(url, 'GET', headers);
}

/** A request of any method, with no body, over a fresh connection (as {@link httpGet}). */
export function httpCall(url: string, method: string, headers: Record<string, string> = {}): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
          ms: performance.now() - started,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Polls `check` every `everyMs` until it returns a value other than undefined, or fails after
 * `withinMs`: a limit only a broken case reaches, many times what a busy machine needs.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  withinMs = 60_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const result = await check();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out after ${withinMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Scrapes `h` until `check` holds of the samples, and returns them. */
export function scrapeUntil(
  h: Harness,
  what: string,
  check: (samples: ParsedSample[]) => boolean,
): Promise<ParsedSample[]> {
  return eventually(what, async () => {
    const { samples } = await h.scrape();
    return check(samples) ? samples : undefined;
  });
}

/** Resolves once `ms` passed since `from` (Unix ms), on the real clock. */
export const after = (from: number, ms: number): Promise<true> =>
  eventually(`${ms} ms after ${from}`, () => (Date.now() > from + ms ? true : undefined));

/** Asserts that no form of any credential occurs in `text`; returns the offending form otherwise. */
export function leakedSecret(text: string): string | undefined {
  return SECRET_FORMS.find((secret) => text.includes(secret));
}
