import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierForPrice, tiers } from '../../../plugins/agent/tiers.js';
import { seedModels } from '../../../plugins/agent/seed-models.js';
import { startAgent, type AgentApp } from './support.js';

describe('agent model catalogue', () => {
  let t: AgentApp;
  beforeAll(async () => {
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1' });
  });
  afterAll(() => t.stop());

  it("lists the seed's ten tiers with their prices and latencies, and the seed models of every tier", async () => {
    const { status, body } = await t.call('GET', '/api/v1/models/catalog');
    expect(status).toBe(200);
    expect(body.tiers).toEqual([
      { tier: 1, category: 'Micro and syntax guard', promptPer1M: 0.0375, latencyMs: 65 },
      { tier: 2, category: 'Ultra-cheap fast remediator', promptPer1M: 0.14, latencyMs: 85 },
      { tier: 3, category: 'Economical code specialist', promptPer1M: 0.15, latencyMs: 110 },
      { tier: 4, category: 'Mid-tier generalist', promptPer1M: 0.8, latencyMs: 145 },
      { tier: 5, category: 'Fast structured reasoner', promptPer1M: 1.1, latencyMs: 180 },
      { tier: 6, category: 'Core engineering workhorse', promptPer1M: 2.5, latencyMs: 210 },
      { tier: 7, category: 'Deep concurrency reasoner', promptPer1M: 4.8, latencyMs: 290 },
      { tier: 8, category: 'Senior architect', promptPer1M: 9, latencyMs: 350 },
      { tier: 9, category: 'Frontier cognitive synthesis', promptPer1M: 18, latencyMs: 480 },
      { tier: 10, category: 'Elite multi-model consensus', promptPer1M: 45, latencyMs: 850 },
    ]);
    expect(body.models).toHaveLength(seedModels.length);
    for (const tier of tiers) expect(body.models.filter((m: { tier: number }) => m.tier === tier.tier).length).toBeGreaterThanOrEqual(2);
    const first = body.models[0];
    expect(Object.keys(first).sort()).toEqual(
      ['benchmarks', 'category', 'contextLength', 'custom', 'id', 'latencyMs', 'name', 'pricing', 'provider', 'source', 'tier', 'updatedAt'].sort(),
    );
    expect(first).toMatchObject({
      tier: 1,
      category: 'Micro and syntax guard',
      custom: false,
      source: 'seed',
      pricing: { promptPer1M: 0.0375, completionPer1M: 0.15 },
    });
  });

  it('filters by tier and by a text query', async () => {
    const tier7 = (await t.call('GET', '/api/v1/models/catalog?tier=7')).body;
    expect(tier7.tiers).toEqual([{ tier: 7, category: 'Deep concurrency reasoner', promptPer1M: 4.8, latencyMs: 290 }]);
    expect(tier7.models.map((m: { id: string }) => m.id).sort()).toEqual(['anthropic/claude-sonnet-4', 'openai/o3']);
    const q = (await t.call('GET', '/api/v1/models/catalog?q=coder')).body;
    expect(q.models.map((m: { id: string }) => m.id).sort()).toEqual(['qwen/qwen-2.5-coder-32b-instruct', 'qwen/qwen-2.5-coder-7b-instruct']);
    expect((await t.call('GET', '/api/v1/models/catalog?tier=11')).status).toBe(400);
  });

  it('adds a custom model to a tier with its pricing, and refuses a duplicate id with 409', async () => {
    const added = await t.call('POST', '/api/v1/models/catalog', {
      id: 'local/qwen2.5-coder',
      name: 'Local Qwen',
      tier: 3,
      contextLength: 32768,
      pricing: { promptPer1M: 0.01, completionPer1M: 0.02 },
      benchmarks: { humaneval: 0.88 },
    });
    expect(added.status).toBe(201);
    expect(added.body.model).toEqual({
      id: 'local/qwen2.5-coder',
      name: 'Local Qwen',
      provider: 'local',
      tier: 3,
      category: 'Economical code specialist',
      contextLength: 32768,
      pricing: { promptPer1M: 0.01, completionPer1M: 0.02 },
      latencyMs: 110,
      benchmarks: { humaneval: 0.88 },
      custom: true,
      source: 'custom',
      updatedAt: expect.any(String),
    });
    const tier3 = (await t.call('GET', '/api/v1/models/catalog?tier=3')).body.models.map((m: { id: string }) => m.id);
    expect(tier3).toContain('local/qwen2.5-coder');
    const dup = await t.call('POST', '/api/v1/models/catalog', { id: 'local/qwen2.5-coder', tier: 4, pricing: { promptPer1M: 1, completionPer1M: 1 } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('model_exists');
    const seedDup = await t.call('POST', '/api/v1/models/catalog', { id: 'openai/o3', tier: 4, pricing: { promptPer1M: 1, completionPer1M: 1 } });
    expect(seedDup.body.error.code).toBe('model_exists');
  });

  it('refuses an unknown tier and bad prices with 400', async () => {
    const badTier = await t.call('POST', '/api/v1/models/catalog', { id: 'x/y', tier: 11, pricing: { promptPer1M: 1, completionPer1M: 1 } });
    expect(badTier.status).toBe(400);
    expect(badTier.body.error).toEqual({ code: 'unknown_tier', message: 'Tier 11 does not exist; tiers are 1 to 10.', details: { tier: 11, max: 10 } });
    const badPrice = await t.call('POST', '/api/v1/models/catalog', { id: 'x/y', tier: 2, pricing: { promptPer1M: -1, completionPer1M: 1 } });
    expect(badPrice.status).toBe(400);
    expect(badPrice.body.error.code).toBe('validation_failed');
    expect(badPrice.body.error.details.issues[0].path).toBe('body.pricing.promptPer1M');
  });

  it('removes a custom model (deleted) by ?id= and hides a seed model given in a body; an absent one is 404', async () => {
    await t.call('POST', '/api/v1/models/catalog', { id: 'local/tmp', tier: 1, pricing: { promptPer1M: 0, completionPer1M: 0 } });
    const removed = await t.call('DELETE', '/api/v1/models/catalog?id=local/tmp');
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ ok: true, removed: { id: 'local/tmp', tier: 1, custom: true, action: 'deleted' }, cacheEntriesPurged: 0 });
    const hidden = await t.call('DELETE', '/api/v1/models/catalog', { id: 'openai/o3' });
    expect(hidden.body.removed).toEqual({ id: 'openai/o3', tier: 7, custom: false, action: 'hidden' });
    const ids = (await t.call('GET', '/api/v1/models/catalog')).body.models.map((m: { id: string }) => m.id);
    expect(ids).not.toContain('openai/o3');
    expect(ids).not.toContain('local/tmp');
    const again = await t.call('DELETE', '/api/v1/models/catalog?id=openai/o3');
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('model_not_found');
    const noId = await t.call('DELETE', '/api/v1/models/catalog');
    expect(noId.status).toBe(400);
    expect(noId.body.error.code).toBe('validation_failed');
    expect(noId.body.error.details.issues[0].path).toBe('body');
  });
});

describe('tier assignment by price', () => {
  it("puts each tier's own reference price in that tier, free models in tier 1 and anything dearer than tier 10 in tier 10", () => {
    for (const tier of tiers) expect(tierForPrice(tier.promptPer1M)).toBe(tier.tier);
    expect(tierForPrice(0)).toBe(1);
    expect(tierForPrice(0.07)).toBe(1); // below sqrt(0.0375 * 0.14) = 0.0725
    expect(tierForPrice(0.08)).toBe(2);
    expect(tierForPrice(0.3)).toBe(3); // below sqrt(0.15 * 0.8) = 0.346
    expect(tierForPrice(28)).toBe(9); // below sqrt(18 * 45) = 28.46
    expect(tierForPrice(30)).toBe(10);
    expect(tierForPrice(500)).toBe(10);
  });
});
