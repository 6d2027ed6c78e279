import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { startProviderServer, perToken, type ModelListServer } from './provider-server.js';
import { readSse } from './sse-client.js';
import { startAgent, type AgentApp } from './support.js';

const promtool = spawnSync('promtool', ['--version']).status === 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('agent telemetry: the event feed, the dead-letter queue and the metrics', () => {
  let t: AgentApp;
  let provider: ModelListServer;
  beforeAll(async () => {
    provider = await startProviderServer([{ id: 'acme/one', name: 'One', context_length: 1000, pricing: { prompt: perToken(1), completion: perToken(2) } }]);
    t = await startAgent({ baseUrl: provider.baseUrl, callTimeoutMs: 1500, sync: { attempts: 2, backoffMs: 10 }, breaker: { consecutiveFailures: 50 } });
  });
  afterAll(async () => {
    await t.stop();
    await provider.close();
  });

  const events = (query: string) => fetch(`${t.base}/api/v1/telemetry/events?${query}`, { headers: { accept: 'text/event-stream' } });

  it('delivers every event exactly once to a client that disconnects mid-stream under load and resumes with Last-Event-ID', async () => {
    const start = (await t.call('GET', '/api/v1/telemetry/events?limit=1')).body;
    const from = start.events.length === 0 ? 0 : (await t.call('GET', '/api/v1/telemetry/events?limit=1000')).body.next;
    const total = 400;
    // Load: 400 writes, 8 at a time, each appending one event.
    const producer = (async () => {
      for (let i = 0; i < total; i += 8) {
        await Promise.all(Array.from({ length: 8 }, (_, k) => t.call('POST', '/api/v1/tokens/budget', { maxOutputTokens: 1000 + i + k })));
      }
    })();
    const first = await readSse(await events(`after=${from}&kind=budget.changed`), (_m, all) => all.length >= 60);
    const lastSeen = first.at(-1)!.id!;
    await sleep(30); // events keep coming while the client is away
    const resumed = await fetch(`${t.base}/api/v1/telemetry/events?kind=budget.changed`, {
      headers: { accept: 'text/event-stream', 'last-event-id': lastSeen },
    });
    const rest = await readSse(resumed, (_m, all) => first.length + all.length >= total);
    await producer;
    const ids = [...first, ...rest].map((m) => Number(m.id));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const stored: number[] = [];
    let after = from;
    for (;;) {
      const page = (await t.call('GET', `/api/v1/telemetry/events?after=${after}&limit=1000&kind=budget.changed`)).body;
      stored.push(...page.events.map((e: { id: number }) => e.id));
      after = page.next;
      if (!page.more) break;
    }
    expect(stored).toHaveLength(total);
    expect(ids).toEqual(stored);
    expect([...first, ...rest].every((m) => m.event === 'budget.changed')).toBe(true);
    expect(JSON.parse(rest[0]!.data)).toMatchObject({ type: 'budget.changed', tenant: 'default', data: { maxOutputTokens: expect.any(Number) } });
  });

  it('pages events as JSON with after, limit and kind filters', async () => {
    const page = (await t.call('GET', '/api/v1/telemetry/events?kind=budget.*&limit=5')).body;
    expect(page.events).toHaveLength(5);
    expect(page.more).toBe(true);
    const next = (await t.call('GET', `/api/v1/telemetry/events?kind=budget.*&limit=5&after=${page.next}`)).body;
    expect(next.events[0].id).toBeGreaterThan(page.events[4].id);
  });

  it('quarantines a sync job that fails for good with its error, stacks, attempts and input, and lists it', async () => {
    provider.failNext = [500, 502];
    const failed = await t.call('POST', '/api/v1/models/sync');
    expect(failed.status).toBe(502);
    await sleep(50);
    const { records } = (await t.call('GET', '/api/v1/telemetry/dlq')).body;
    expect(records).toHaveLength(1);
    const r = records[0];
    expect(r).toMatchObject({
      id: expect.stringMatching(/^dlq_/),
      jobId: failed.body.error.details.jobId,
      jobName: 'models.sync',
      error: { code: 'sync_failed', message: expect.stringContaining('answered 502') },
      stack: expect.stringContaining('sync_failed'),
      input: {},
      replayOf: null,
      replays: [],
      replayState: null,
    });
    expect(
      r.attempts.map((a: { attempt: number; error: { message: string }; stack: string }) => [
        a.attempt,
        a.error.message.includes(a.attempt === 1 ? '500' : '502'),
        a.stack.includes('    at '),
      ]),
    ).toEqual([
      [1, true, true],
      [2, true, true],
    ]);
    expect(Date.parse(r.firstFailureAt)).toBeLessThanOrEqual(Date.parse(r.lastFailureAt));
  });

  it('replays a quarantined task as a new job, links both, refuses a second replay while it runs (409) and an unknown id (404)', async () => {
    const r = (await t.call('GET', '/api/v1/telemetry/dlq')).body.records[0];
    provider.failNext = ['hang', 'hang'];
    const replay = await t.call('POST', `/api/v1/telemetry/dlq/${r.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ ok: true, dlqId: r.id, job: { id: expect.stringMatching(/^job_/), state: 'queued' } });
    const again = await t.call('POST', `/api/v1/telemetry/dlq/${r.id}/replay`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'replay_running', details: { id: r.id, jobId: replay.body.job.id } });
    // Other work goes on while the replay runs.
    expect((await t.call('GET', '/api/v1/models/catalog?tier=1')).status).toBe(200);
    // The replay hangs twice (timeouts) and is quarantined again, linked to the first record.
    let second: any;
    for (let i = 0; i < 100 && !second; i++) {
      await sleep(100);
      second = (await t.call('GET', '/api/v1/telemetry/dlq')).body.records.find((x: { replayOf: string | null }) => x.replayOf === r.id);
    }
    expect(second).toMatchObject({ jobId: replay.body.job.id, replayOf: r.id, error: { code: 'sync_failed' } });
    // The provider is healthy again: the next replay completes.
    const ok = await t.call('POST', `/api/v1/telemetry/dlq/${r.id}/replay`);
    expect(ok.status).toBe(202);
    let record: any;
    for (let i = 0; i < 50; i++) {
      record = (await t.call('GET', '/api/v1/telemetry/dlq')).body.records.find((x: { id: string }) => x.id === r.id);
      if (record.replayState === 'completed') break;
      await sleep(50);
    }
    expect(record.replays.map((x: { jobId: string }) => x.jobId)).toEqual([replay.body.job.id, ok.body.job.id]);
    expect(record.replayState).toBe('completed');
    expect((await t.call('GET', '/api/v1/models/catalog?q=acme')).body.models.map((m: { id: string }) => m.id)).toEqual(['acme/one']);
    const missing = await t.call('POST', '/api/v1/telemetry/dlq/dlq_nope/replay');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('dlq_not_found');
  });

  it('serves Prometheus text by default and OpenMetrics when asked, with the agent series', async () => {
    await t.call('POST', '/api/v1/chat/completions', { model: 'tier:1', messages: [{ role: 'user', content: 'metrics please' }] });
    const text = await fetch(`${t.base}/metrics/prometheus`);
    expect(text.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const body = await text.text();
    for (const name of [
      'agent_llm_calls_total',
      'agent_llm_tokens_total',
      'agent_llm_cost_usd_total',
      'agent_cache_lookups_total',
      'agent_circuits',
      'agent_dlq_records',
      'tessera_jobs_finished_total',
    ]) {
      expect(body).toContain(`# TYPE ${name}`);
    }
    const dlq = (await t.call('GET', '/api/v1/telemetry/dlq')).body.records.length;
    expect(body).toMatch(new RegExp(`^agent_dlq_records ${dlq}$`, 'm'));
    const om = await fetch(`${t.base}/metrics/prometheus`, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
    expect(om.headers.get('content-type')).toBe('application/openmetrics-text; version=1.0.0; charset=utf-8');
    const omBody = await om.text();
    expect(omBody.trimEnd().endsWith('# EOF')).toBe(true);
    expect(omBody).toContain('# TYPE agent_llm_calls counter');
    expect(omBody).toMatch(/^agent_llm_calls_total\{tier="1",outcome="ok",cache="miss"\} 1$/m);
    expect(omBody).not.toMatch(/\n\n/);
    // The shared registry keeps its own format for /metrics.
    expect((await fetch(`${t.base}/metrics`)).headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it("serves an OpenAPI 3.1 document with every agent route at the seed's paths and methods", async () => {
    const doc = (await (await fetch(`${t.base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    for (const route of [
      'GET /api/v1/telemetry/events',
      'GET /api/v1/telemetry/dlq',
      'POST /api/v1/telemetry/dlq/{dlq_id}/replay',
      'GET /api/v1/telemetry/circuit-breakers',
      'GET /metrics/prometheus',
      'GET /api/v1/models/catalog',
      'POST /api/v1/models/catalog',
      'DELETE /api/v1/models/catalog',
      'POST /api/v1/models/sync',
      'GET /api/v1/models/config',
      'POST /api/v1/models/config',
      'GET /api/v1/cache/stats',
      'POST /api/v1/cache/clear',
      'POST /api/v1/tools/search',
      'POST /api/v1/tools/search/toggle',
      'GET /api/v1/tokens/budget',
      'POST /api/v1/tokens/budget',
    ]) {
      expect(routes).toContain(route);
    }
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.skipIf(!promtool)('passes promtool check metrics', async () => {
    const file = path.join(tempDir(), 'metrics.txt');
    writeFileSync(file, await (await fetch(`${t.base}/metrics/prometheus`)).text());
    const out = execFileSync('sh', ['-c', `promtool check metrics < ${file} 2>&1; echo "exit=$?"`], { encoding: 'utf8' });
    expect(out.trim()).toBe('exit=0');
  });
});

describe('agent telemetry behind retention', () => {
  it('sends a gap marker, never a silent skip, to a reader asking for pruned events', async () => {
    const t = await startAgent({}, { manifest: { events: { maxEvents: 20 } } });
    try {
      for (let i = 0; i < 120; i++) await t.call('POST', '/api/v1/tokens/budget', { maxOutputTokens: 100 + i });
      await sleep(100);
      const page = (await t.call('GET', '/api/v1/telemetry/events?after=0&limit=5')).body;
      expect(page.gap).toEqual({ kind: 'gap', from: 1, to: expect.any(Number) });
      expect(page.events[0].id).toBe(page.gap.to + 1);
      const res = await fetch(`${t.base}/api/v1/telemetry/events`, { headers: { accept: 'text/event-stream', 'last-event-id': '0' } });
      const messages = await readSse(res, (_m, all) => all.length >= 2);
      expect(messages[0]).toEqual({ id: String(page.gap.to), event: 'gap', data: JSON.stringify({ from: 1, to: page.gap.to }) });
      expect(Number(messages[1]!.id)).toBe(page.gap.to + 1);
    } finally {
      await t.stop();
    }
  });
});
