import { describe, expect, test } from 'vitest';
import { eventually, useHarness, type Harness } from '../helpers/harness.js';

// An event dated ahead through the exporter (docs/metrics.md, Event counters; docs/operations.md,
// Logs): the simulator's QStash log lists one ERROR event whose time is in microseconds. The poll that
// refuses it logs so at warn, with the unit's labels and a count, never the event's content, and the
// polls that list it again say nothing more (an event is refused once); the rejected field `time` is
// not also logged as a wrong type.

const start = useHarness({
  sim: { frozen: true },
  qstashSources: ['qstash_logs'],
  managementSources: [],
});

const HOST = 'private-hook.example.com';
const MESSAGE_ID = 'msg_k2Vq9ContentOfTheEvent';
const MSG = "events dated more than 5 minutes ahead of the exporter's clock refused: not counted";

type Line = Record<string, unknown>;
const lines = (h: Harness): Line[] => h.logs.map((line) => JSON.parse(line) as Line);
const polled = (line: Line): boolean => line.msg === 'poll succeeded' && line.source === 'qstash_logs';

const event = (time: number, messageId: string) => ({
  time,
  messageId,
  state: 'ERROR',
  url: `https://${HOST}/hook?token=abc`,
  responseStatus: 500,
});

describe('an event dated ahead, through the exporter', () => {
  test('is logged at warn once, by the poll that refuses it, without its content', async () => {
    const h = await start();
    h.sim.setEventDating('as-given');
    const now = Date.now();
    const ahead = now * 1000;
    h.sim.setQstashLogs([event(ahead, MESSAGE_ID), event(now + 500, 'msg_counted')]);
    // Three polls after the first that refused it.
    await eventually('three polls after the refusing one', () => {
      const all = lines(h);
      const first = all.findIndex((line) => line.msg === MSG);
      return first >= 0 && all.slice(first).filter(polled).length >= 3 ? true : undefined;
    });

    const all = lines(h);
    const first = all.findIndex((line) => line.msg === MSG);
    // From the first on: the refusing poll's line, then its "poll succeeded", then polls that list the
    // event again and say nothing of it.
    const sequence = all
      .slice(first)
      .filter((line) => line.msg === MSG || polled(line))
      .map((line) => (line.msg === MSG ? 'refused' : 'polled'));
    expect(sequence.length).toBeGreaterThanOrEqual(4);
    expect(sequence).toEqual(['refused', ...Array.from({ length: sequence.length - 1 }, () => 'polled')]);
    for (const line of all.filter((l) => l.msg === MSG))
      expect(line).toMatchObject({
        level: 'warn',
        source: 'qstash_logs',
        account: 'eu',
        field: 'time',
        count: 1,
      });
    // Not its content, anywhere in the log: its ID, destination or time.
    for (const text of h.logs) {
      expect(text).not.toContain(MESSAGE_ID);
      expect(text).not.toContain(HOST);
      expect(text).not.toContain(String(ahead));
    }
    expect(all.filter((line) => String(line.msg).startsWith('field rejected'))).toEqual([]);

    // Gone from the log upstream: the lines stop.
    h.sim.setQstashLogs([event(now + 500, 'msg_counted')]);
    const said = (): number => lines(h).filter((line) => line.msg === MSG).length;
    const before = await eventually('a poll without the event', () => {
      const after = lines(h);
      const last = after.map((line) => line.msg === MSG).lastIndexOf(true);
      return after.slice(last).filter(polled).length >= 3 ? said() : undefined;
    });
    await eventually('two more polls', () => {
      const after = lines(h);
      const last = after.map((line) => line.msg === MSG).lastIndexOf(true);
      return after.slice(last).filter(polled).length >= 5 ? true : undefined;
    });
    expect(said()).toBe(before);
  });
});
