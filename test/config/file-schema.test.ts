import { describe, expect, test } from 'vitest';
import { fileSchema } from '../../src/config/file-schema.js';

// The schema parses durations and schedules itself, so that nothing after it parses them again.

describe('fileSchema', () => {
  test('http.timeout becomes milliseconds', () => {
    expect(fileSchema.parse({ http: { timeout: '5s' } }).http?.timeout).toBe(5000);
    expect(fileSchema.parse({ http: { timeout: '2m' } }).http?.timeout).toBe(120_000);
  });

  test('an entry carries one parsed schedule: its interval, its cron schedule, or the default', () => {
    const parsed = fileSchema.parse({
      qstash: [
        { name: 'a', token: 't', interval: '15s' },
        { name: 'b', token: 't', schedule: '0 */5 * * * *' },
        { name: 'c', token: 't' },
      ],
      management: [{ name: 'm', email: 'e@x', api_key: 'k', databases: ['d'] }],
    });
    expect(parsed.qstash?.map((entry) => entry.schedule)).toEqual([
      { cron: '*/15 * * * * *', intervalMs: 15_000 },
      { cron: '0 */5 * * * *', intervalMs: 300_000 },
      { cron: '*/30 * * * * *', intervalMs: 30_000 },
    ]);
    expect(parsed.qstash?.[0]).not.toHaveProperty('interval');
    expect(parsed.management?.[0]?.schedule).toEqual({ cron: '0 */1 * * * *', intervalMs: 60_000 });
  });

  test('a bad interval does not stop the checks after it', () => {
    const result = fileSchema.safeParse({
      qstash: [
        { name: 'a', token: 't', interval: '7s', schedule: 'x' },
        { name: 'a', token: 't' },
      ],
    });
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'qstash.0.interval',
      'qstash.0.schedule',
      'qstash.0.schedule',
      'qstash.1.name',
    ]);
  });
});
