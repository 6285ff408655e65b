import autocannon from 'autocannon';

/** One load run's outcome. */
export interface LoadResult {
  readonly requestsPerSecond: number;
  /** Latency percentiles in milliseconds, from every response's own timing (not the 1 ms histogram). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly bytesPerResponse: number;
  readonly requests: number;
  /** Errors, timeouts and non-2xx answers: must be 0 for the figures to mean anything. */
  readonly failures: number;
}

/** One scrape variant on the exporter and on the bare server answering the same bytes. */
export interface ScrapeFigure {
  readonly label: string;
  readonly connections: number;
  readonly exporter: LoadResult;
  readonly bare: LoadResult;
}

/** What to send, how hard and for how long. */
export interface LoadOptions {
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly connections: number;
  readonly durationSeconds: number;
  /**
   * Instead of a duration: this many responses in all, the run lasting as long as they take. A run
   * cut at a duration drops the responses in flight, which is most of them when a response takes
   * nearly as long as the run (16 clients of a 14 MB body).
   */
  readonly requests?: number;
  /** A short unmeasured run first, so both servers are warm (JIT, sockets) when measured. */
  readonly warmupSeconds?: number;
}

/** Scrapes `url` with autocannon: `connections` keep-alive clients, one request in flight each. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  await warmUp(options);
  return summarise([await measure(options)]);
}

/**
 * Loads two servers in turns (a, b, a, b…, `rounds` turns each: one second, or `requests` responses
 * when given) and pools each one's responses: on a shared machine whatever else runs then weighs on
 * both alike, where one long run after the other lets a burst of noise land on one side only. Tail
 * latencies need that most.
 */
export async function compareLoad(
  a: LoadOptions,
  b: LoadOptions,
  rounds: number,
): Promise<{ a: LoadResult; b: LoadResult }> {
  await warmUp(a);
  await warmUp(b);
  const runs: { a: Run[]; b: Run[] } = { a: [], b: [] };
  for (let round = 0; round < rounds; round++) {
    runs.a.push(await measure({ ...a, durationSeconds: 1 }));
    runs.b.push(await measure({ ...b, durationSeconds: 1 }));
  }
  return { a: summarise(runs.a), b: summarise(runs.b) };
}

/** One measured run: every 2xx response's latency, its bytes, and what failed. */
interface Run {
  readonly latencies: number[];
  readonly bytes: number;
  readonly seconds: number;
  readonly failures: number;
}

async function warmUp(options: LoadOptions): Promise<void> {
  if (options.warmupSeconds === undefined || options.warmupSeconds <= 0) return;
  const base = { url: options.url, connections: options.connections, pipelining: 1, timeout: 30 };
  await autocannon({ ...base, headers: options.headers ?? {}, duration: options.warmupSeconds });
}

async function measure(options: LoadOptions): Promise<Run> {
  const base = { url: options.url, connections: options.connections, pipelining: 1, timeout: 30 };
  const headers = options.headers ?? {};
  const latencies: number[] = [];
  let bytes = 0;
  const started = performance.now();
  const instance = autocannon({
    ...base,
    headers,
    ...(options.requests === undefined
      ? { duration: options.durationSeconds }
      : { amount: options.requests }),
  });
  instance.on('response', (_client, status, responseBytes, ms) => {
    if (status >= 200 && status < 300) {
      latencies.push(ms);
      bytes += responseBytes;
    }
  });
  const result = await instance;
  return {
    latencies,
    bytes,
    seconds: options.requests === undefined ? result.duration : (performance.now() - started) / 1000,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

function summarise(runs: readonly Run[]): LoadResult {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const bytes = runs.reduce((sum, run) => sum + run.bytes, 0);
  const seconds = runs.reduce((sum, run) => sum + run.seconds, 0);
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    bytesPerResponse: latencies.length === 0 ? 0 : bytes / latencies.length,
    requests: latencies.length,
    failures: runs.reduce((sum, run) => sum + run.failures, 0),
  };
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}
