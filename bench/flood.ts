import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimulator } from '../src/demo/simulator.js';
import { procMemory, startExporter } from './exporter-process.js';
import { simulatorOptions, type State } from './states.js';

// Issue 27, part 4: clients that pipeline thousands of `GET /metrics` and never read an answer must
// not starve a scraper that opens a fresh connection. The exporter runs as its own process holding a
// state (no poll during the phase: a one-hour interval), the attackers and the scraper live here.

/** How big a flood, for how long, and what a scrape must achieve. */
export interface FloodPlan {
  readonly connections: number;
  readonly pipelined: number;
  readonly seconds: number;
  /** A fresh connection scrapes this often, each scrape on its own, given up after `timeoutMs`. */
  readonly scrapeEveryMs: number;
  readonly timeoutMs: number;
  /** The flood's seconds are cut into windows of this length... */
  readonly windowSeconds: number;
  /** ...each of which must see a scrape started in it answered within this. */
  readonly answeredWithinMs: number;
  /** How long after the attackers left the memory is read again. */
  readonly settleSeconds: number;
}

export const FULL_FLOOD: FloodPlan = {
  connections: 200,
  pipelined: 2000,
  seconds: 15,
  scrapeEveryMs: 1000,
  timeoutMs: 10_000,
  windowSeconds: 3,
  answeredWithinMs: 2000,
  settleSeconds: 5,
};

export const QUICK_FLOOD: FloodPlan = {
  ...FULL_FLOOD,
  connections: 4,
  pipelined: 50,
  seconds: 3,
  settleSeconds: 1,
};

/** One scrape on a fresh connection during the flood. */
export interface FloodScrape {
  /** Milliseconds from the flood's start to the scrape's. */
  readonly atMs: number;
  /** Its duration (until the answer's last byte, or until it failed). */
  readonly ms: number;
  /** 0 when it failed or timed out. */
  readonly status: number;
}

/** Whether a window of the flood saw a scrape answered in time. */
export interface FloodWindow {
  readonly fromSeconds: number;
  readonly answered: boolean;
  /** The slowest scrape started in it (its timeout when one never finished). */
  readonly worstMs: number;
}

/** What one flood did. */
export interface FloodFigures {
  readonly plan: FloodPlan;
  readonly bodyBytes: number;
  readonly rssBeforeBytes: number;
  /** The most RSS sampled (every 100 ms) from the flood's start to its end. */
  readonly peakRssBytes: number;
  /** RSS `settleSeconds` after the attackers closed their connections. */
  readonly rssAfterBytes: number;
  readonly scrapes: readonly FloodScrape[];
  readonly windows: readonly FloodWindow[];
  readonly worstMs: number;
  /** Descriptors the exporter held at the flood's end beyond those before it: attack connections left open. */
  readonly attackersHeld: number;
}

/** Starts the exporter holding `state`, floods it by `plan`, and reports. */
export async function measureFlood(state: State, plan: FloodPlan): Promise<FloodFigures> {
  const simulator = await startSimulator(simulatorOptions(state));
  try {
    const exporter = await startExporter({
      simulatorUrl: simulator.url,
      state,
      limits: {
        maxFlowControlKeys: Math.max(1000, state.flowControlKeys),
        maxUrlGroups: Math.max(1000, state.urlGroups),
      },
    });
    try {
      const port = Number(new URL(exporter.url).port);
      const bodyBytes = (await exporter.scrape()).length;
      await sleep(500);
      return { bodyBytes, ...(await flood(port, plan, exporter.pid)) };
    } finally {
      await exporter.stop();
    }
  } finally {
    await simulator.stop();
  }
}

async function flood(port: number, plan: FloodPlan, pid: number): Promise<Omit<FloodFigures, 'bodyBytes'>> {
  const rss = (): number => procMemory(pid)?.rssBytes ?? NaN;
  const fds = (): number => readdirSync(`/proc/${pid}/fd`).length;
  const rssBeforeBytes = rss();
  const fdsBefore = fds();
  const requests = Buffer.from('GET /metrics HTTP/1.1\r\nHost: exporter\r\n\r\n'.repeat(plan.pipelined));
  const attackers: Socket[] = [];
  const started = performance.now();
  for (let i = 0; i < plan.connections; i++) {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(requests);
      // Never read an answer: the exporter's writes pile up in its socket.
      socket.pause();
    });
    socket.on('error', () => undefined);
    attackers.push(socket);
  }
  let peakRssBytes = rssBeforeBytes;
  const sampler = setInterval(() => (peakRssBytes = Math.max(peakRssBytes, rss())), 100);
  const pending: Promise<FloodScrape>[] = [];
  try {
    for (let at = 0; at < plan.seconds * 1000; at += plan.scrapeEveryMs) {
      const wait = started + at - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(timedScrape(port, plan.timeoutMs, performance.now() - started));
    }
    await sleep(Math.max(0, started + plan.seconds * 1000 - performance.now()));
  } finally {
    clearInterval(sampler);
  }
  const attackersHeld = Math.max(0, fds() - fdsBefore);
  for (const socket of attackers) socket.destroy();
  const scrapes = await Promise.all(pending);
  await sleep(plan.settleSeconds * 1000);
  const windows = floodWindows(scrapes, plan);
  return {
    plan,
    rssBeforeBytes,
    peakRssBytes,
    rssAfterBytes: rss(),
    scrapes,
    windows,
    worstMs: Math.max(...scrapes.map((s) => s.ms)),
    attackersHeld,
  };
}

/** The flood cut into windows, each judged by the scrapes started in it. */
export function floodWindows(scrapes: readonly FloodScrape[], plan: FloodPlan): FloodWindow[] {
  const windows: FloodWindow[] = [];
  for (let from = 0; from < plan.seconds; from += plan.windowSeconds) {
    const inside = scrapes.filter(
      (s) => s.atMs >= from * 1000 && s.atMs < (from + plan.windowSeconds) * 1000,
    );
    windows.push({
      fromSeconds: from,
      answered: inside.some((s) => s.status === 200 && s.ms <= plan.answeredWithinMs),
      worstMs: Math.max(0, ...inside.map((s) => s.ms)),
    });
  }
  return windows;
}

/** A GET of /metrics on a connection of its own, as a scraper opening one would. Never rejects. */
async function timedScrape(port: number, timeoutMs: number, atMs: number): Promise<FloodScrape> {
  const started = performance.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (status: number): void => {
      if (done) return;
      done = true;
      resolve({ atMs: Math.round(atMs), ms: Math.round(performance.now() - started), status });
    };
    const req = request({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => finish(res.statusCode ?? 0));
      res.on('error', () => finish(0));
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => finish(0));
    req.end();
  });
}
