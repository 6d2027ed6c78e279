import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startFleet, type Fleet } from './support.js';

describe('GET /api/console/next-runs', () => {
  let f: Fleet;
  beforeAll(async () => {
    f = await startFleet();
  });
  afterAll(() => f.stop());

  const nextRuns = (query: string) => send(`${f.console}/api/console/next-runs?${query}`);

  it("lists a cron expression's next runs in UTC, or in the time zone given", async () => {
    const { status, body } = await nextRuns('cron=' + encodeURIComponent('0 3 * * *'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, cron: '0 3 * * *', timezone: 'UTC' });
    expect(body.runs).toHaveLength(5);
    const times = body.runs.map((r: string) => new Date(r));
    expect(times[0].getTime()).toBeGreaterThan(Date.now());
    expect(times[0].getTime()).toBeLessThanOrEqual(Date.now() + 86_400_000);
    for (const [i, t] of times.entries()) {
      expect(t.toISOString()).toMatch(/T03:00:00\.000Z$/);
      if (i > 0) expect(t.getTime() - times[i - 1].getTime()).toBe(86_400_000);
    }
    const kolkata = await nextRuns('count=2&timezone=Asia/Kolkata&cron=' + encodeURIComponent('30 9 * * 1'));
    expect(kolkata.body).toMatchObject({ cron: '30 9 * * 1', timezone: 'Asia/Kolkata' });
    // 09:30 in India (UTC+05:30, no daylight saving) is 04:00 UTC, every Monday.
    expect(kolkata.body.runs.map((r: string) => [new Date(r).getUTCDay(), r.slice(11)])).toEqual([
      [1, '04:00:00.000Z'],
      [1, '04:00:00.000Z'],
    ]);
  });

  it('lists an interval on the grid a schedule created now would follow', async () => {
    const before = Date.now();
    const { body } = await nextRuns('interval=6h&count=3');
    const after = Date.now();
    expect(body.interval).toBe('6h');
    const times = body.runs.map((r: string) => new Date(r).getTime());
    expect(times[0]).toBeGreaterThanOrEqual(before + 6 * 3_600_000);
    expect(times[0]).toBeLessThanOrEqual(after + 6 * 3_600_000);
    expect([times[1] - times[0], times[2] - times[1]]).toEqual([6 * 3_600_000, 6 * 3_600_000]);
  });

  it('answers 400 invalid_schedule with what is wrong, as creating the schedule would', async () => {
    const bad = await nextRuns('cron=' + encodeURIComponent('61 * * * *'));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_schedule', message: expect.stringContaining('"61 * * * *" is not a valid cron expression') });
    const short = await nextRuns('interval=500ms');
    expect(short.body.error).toMatchObject({ code: 'invalid_schedule', message: 'An interval must be at least 1s, got 500ms.' });
    const both = await nextRuns('interval=1h&cron=' + encodeURIComponent('0 * * * *'));
    expect(both.body.error).toMatchObject({ code: 'invalid_schedule', message: 'Give either "cron" or "interval", not both.' });
    const zone = await nextRuns('timezone=Mars/Olympus&cron=' + encodeURIComponent('0 * * * *'));
    expect(zone.body.error.message).toContain('"Mars/Olympus" is not a time zone');
  });
});
