import { afterEach, expect } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_DATABASES,
  DEMO_EMAIL,
  DEMO_QSTASH_TOKEN,
  startSimulator,
} from '../../src/demo/simulator.js';
import type { Simulator, SimulatorOptions } from '../../src/demo/simulator.js';

/** A `start` for the calling test file: the simulators it starts are stopped after each test. */
export function simulatorsStoppedAfterEach(): (options?: SimulatorOptions) => Promise<Simulator> {
  const running: Simulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((sim) => sim.stop()));
  });
  return async (options) => {
    const sim = await startSimulator(options);
    running.push(sim);
    return sim;
  };
}

export const bearer = (token = DEMO_QSTASH_TOKEN): Record<string, string> => ({
  authorization: `Bearer ${token}`,
});
export const basic = (email = DEMO_EMAIL, key = DEMO_API_KEY): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}`,
});
export const statsPath = (id: string): string => `/v2/redis/stats/${encodeURIComponent(id)}`;

export interface Point {
  x: string;
  y: number | null;
}
export interface FlowEntry {
  flowControlKey: string;
  waitListSize: number;
}
export interface Group {
  name: string;
  createdAt: number;
  updatedAt: number;
  endpoints: { name?: string; url: string }[];
}

export async function getJson<T>(sim: Simulator, path: string, headers: Record<string, string>): Promise<T> {
  const res = await fetch(sim.url + path, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

export const flowControl = async (sim: Simulator): Promise<FlowEntry[]> =>
  (await getJson<{ flowControls: FlowEntry[] }>(sim, '/v2/flowControl/', bearer())).flowControls;
export const urlGroups = (sim: Simulator): Promise<Group[]> => getJson<Group[]>(sim, '/v2/topics', bearer());
export const stats = (sim: Simulator, id = DEMO_DATABASES[0]!): Promise<Record<string, unknown>> =>
  getJson(sim, statsPath(id), basic());

export const GO_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))? \+0000 UTC$/;
export function goTimeMs(x: string): number {
  const m = GO_TIME.exec(x);
  if (!m) throw new Error(`not a Go time: ${x}`);
  return Date.parse(`${m[1]}T${m[2]}Z`) + Number(`0.${m[3] ?? '0'}`) * 1000;
}
export const latest = (series: Point[]): Point =>
  series.filter((p) => p.y !== null).reduce((a, b) => (goTimeMs(b.x) > goTimeMs(a.x) ? b : a));

export async function waitFor(condition: () => boolean): Promise<void> {
  // A limit only a broken case reaches, however busy the machine.
  const deadline = Date.now() + 60_000;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
