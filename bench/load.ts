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

/** What to send, how hard and for how long. */
export interface LoadOptions {
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly connections: number;
  readonly durationSeconds: number;
  /** A short unmeasured run first, so both servers are warm (JIT, sockets) when measured. */
  readonly warmupSeconds?: number;
}

/** Scrapes `url` with autocannon: `connections` keep-alive clients, one request in flight each. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const base = { url: options.url, connections: options.connections, pipelining: 1, timeout: 30 };
  const headers = options.headers ?? {};
  if (options.warmupSeconds !== undefined && options.warmupSeconds > 0) {
    await autocannon({ ...base, headers, duration: options.warmupSeconds });
  }
  const latencies: number[] = [];
  let bytes = 0;
  const instance = autocannon({ ...base, headers, duration: options.durationSeconds });
  instance.on('response', (_client, status, responseBytes, ms) => {
    if (status >= 200 && status < 300) {
      latencies.push(ms);
      bytes += responseBytes;
    }
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / result.duration,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    bytesPerResponse: latencies.length === 0 ? 0 : bytes / latencies.length,
    requests: latencies.length,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}
