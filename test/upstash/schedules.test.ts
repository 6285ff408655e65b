import { describe, expect, test } from 'vitest';
import { parseSchedules } from '../../src/upstash/schedules.js';
import { invalidAsync } from '../helpers/invalid.js';

const SECRET_HEADER = 'Bearer sk_live_schedule-secret-9f8e';
const SECRET_BODY = '{"apiKey":"body-secret-77aa"}';

// As QStash documents `GET /v2/schedules`, with everything a schedule may carry.
const DOCUMENTED = `[
  {
    "scheduleId": "scd_1", "cron": "*/5 * * * *", "destination": "https://hooks.example.com/?token=dest-secret-1",
    "createdAt": 1700000000000, "method": "POST", "header": {"Authorization": ["${SECRET_HEADER}"]},
    "body": ${JSON.stringify(SECRET_BODY)}, "retries": 3, "callback": "https://cb.example.com/?k=cb-secret",
    "failureCallback": "https://fail.example.com/", "isPaused": false,
    "lastScheduleTime": 1700000300000, "nextScheduleTime": 1700000600000,
    "lastScheduleStates": {"msg_1": "SUCCESS", "msg_2": "FAIL"}
  },
  {
    "scheduleId": "scd_2", "cron": "0 * * * *", "destination": "my-url-group", "createdAt": 1700000000000,
    "method": "GET", "isPaused": true
  }
]`;

describe('parseSchedules', () => {
  test('the documented body, keeping only what is exported', async () => {
    const { entries: parsed } = await parseSchedules(JSON.parse(DOCUMENTED));
    expect(parsed).toEqual([
      {
        id: 'scd_1',
        cron: '*/5 * * * *',
        paused: false,
        nextRunMs: 1_700_000_600_000,
        lastRunMs: 1_700_000_300_000,
        lastRunFailed: true,
      },
      { id: 'scd_2', cron: '0 * * * *', paused: true, lastRunFailed: false },
    ]);
    // Destination, headers, body and callbacks can hold secrets: not kept at all.
    const kept = JSON.stringify(parsed);
    for (const secret of ['dest-secret-1', SECRET_HEADER, 'body-secret-77aa', 'cb-secret', 'my-url-group'])
      expect(kept).not.toContain(secret);
  });

  test('a missing isPaused is false; only FAIL states count as failed', async () => {
    expect(
      (
        await parseSchedules([
          { scheduleId: 's', cron: '* * * * *', lastScheduleStates: { a: 'SUCCESS', b: 'IN_PROGRESS' } },
        ])
      ).entries,
    ).toEqual([{ id: 's', cron: '* * * * *', paused: false, lastRunFailed: false }]);
  });

  test.each([
    ['missing scheduleId', [{ cron: '* * * * *' }], 'scheduleId'],
    ['empty scheduleId', [{ scheduleId: '', cron: '* * * * *' }], 'scheduleId'],
    [
      'repeated scheduleId',
      [
        { scheduleId: 's', cron: 'a' },
        { scheduleId: 's', cron: 'b' },
      ],
      'scheduleId',
    ],
  ])('%s → invalid_response naming the field', async (_, body, field) => {
    expect((await invalidAsync(() => parseSchedules(body))).message).toContain(field);
  });

  // Only the key field is all-or-nothing (tested for every listing in tolerance.test.ts).
  test('a missing cron is absent; a nextScheduleTime of the wrong type is left out alone and named', async () => {
    expect(await parseSchedules([{ scheduleId: 's' }])).toEqual({
      entries: [{ id: 's', paused: false, lastRunFailed: false }],
      rejected: [],
    });
    expect(await parseSchedules([{ scheduleId: 's', cron: 'a', nextScheduleTime: 'soon' }])).toEqual({
      entries: [{ id: 's', cron: 'a', paused: false, lastRunFailed: false }],
      rejected: ['nextScheduleTime'],
    });
  });

  test('an error never quotes the secrets of a bad entry', async () => {
    const error = await invalidAsync(() =>
      parseSchedules([
        { scheduleId: 7, cron: 'x', destination: 'https://h/?token=dest-secret-2', body: SECRET_BODY },
      ]),
    );
    expect(error.message).not.toContain('dest-secret-2');
    expect(error.message).not.toContain('body-secret-77aa');
  });

  test('a body that is not an array fails', async () => {
    await invalidAsync(() => parseSchedules({ schedules: [] }));
  });
});
