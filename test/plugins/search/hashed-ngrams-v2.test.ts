import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../runtime/store.js';
import { englishAnalyzer, standardAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { embedText } from '../../../plugins/search/embedders/hashed-embedder.js';
import { embedDocument, embedQuery, type QueryStatistics as EmbeddingCorpus } from '../../../plugins/search/embedders/hashed-ngrams-v2.js';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';

const DIMS = 256;
const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const patchJson = (url: string, body: unknown): Promise<Response> =>
  fetch(url, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** "flow" in 900 of 1000 documents, "flutter" in 2. */
const corpus: EmbeddingCorpus = { analyzers: [standardAnalyzer], docCount: 1000, docFreq: (t) => ({ flow: 900, flutter: 2 })[t] ?? 0 };

describe('hashed-ngrams-v2 embedder', () => {
  it('is deterministic and unit length on both sides, and a document vector does not depend on the statistics', () => {
    const text = 'Aerodynamic heating of swept wings';
    const d = embedDocument(text, 128);
    expect([...d]).toEqual([...embedDocument(text, 128)]);
    expect(dot(d, d)).toBeCloseTo(1, 5);
    const q = embedQuery(text, 128, corpus);
    expect([...q]).toEqual([...embedQuery(text, 128, corpus)]);
    expect(dot(q, q)).toBeCloseTo(1, 5);
    expect([...embedDocument('', 16)]).toEqual(new Array(16).fill(0));
    expect([...embedDocument('the of and', 16)]).toEqual(new Array(16).fill(0)); // stop words only
  });

  it('weights query terms by idf: a rare shared term outranks a common shared term', () => {
    const rare = embedDocument('flutter of thin panels', DIMS);
    const common = embedDocument('flow over thin panels', DIMS);
    const q = embedQuery('flow flutter', DIMS, corpus);
    expect(dot(q, rare)).toBeGreaterThan(dot(q, common) + 0.2);
    // Without statistics both words weigh the same, and neither document is preferred that much.
    const flat = embedQuery('flow flutter', DIMS);
    expect(Math.abs(dot(flat, rare) - dot(flat, common))).toBeLessThan(0.1);
  });

  it('uses the analyzers it is given, so stems line up with keyword search', () => {
    const q = embedQuery('wings', DIMS, { ...corpus, analyzers: [englishAnalyzer] });
    expect(dot(q, embedDocument('wing', DIMS, [englishAnalyzer]))).toBeCloseTo(1, 5);
    expect(dot(embedQuery('wings', DIMS), embedDocument('wing', DIMS))).toBeLessThan(0.9);
  });
});

describe('hashed-ngrams-v2 through the API', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
  });
  afterAll(() => t.stop());

  it('writes the latest built-in model (corpus-lsa-v1) into the settings of a new index, also when the builtin embedder is named without a model', async () => {
    const created = await json(
      await postJson(base, { name: 'fresh', mappings: { title: { type: 'text' } }, settings: { vectorDimensions: DIMS, autoEmbed: true } }),
    );
    expect(created.index.settings.embedder).toEqual({ type: 'builtin', model: 'corpus-lsa-v1' });
    const named = await json(
      await postJson(base, {
        name: 'named',
        mappings: { title: { type: 'text' } },
        settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: { type: 'builtin' } },
      }),
    );
    expect(named.index.settings.embedder).toEqual({ type: 'builtin', model: 'corpus-lsa-v1' });
    const bad = await patchJson(`${base}/named`, { settings: { embedder: { type: 'builtin', model: 'hashed-ngrams-v9' } } });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe('validation_failed');
  });

  it('ranks a document sharing the rare query term above one sharing the common term, with idf from the index', async () => {
    const docs = [
      { id: 'rare', title: 'flutter of thin panels' },
      { id: 'common', title: 'flow over thin panels' },
      ...Array.from({ length: 30 }, (_, i) => ({ id: `f${i}`, title: `flow case ${i} in a duct` })),
    ];
    expect((await json(await postJson(`${base}/fresh/documents`, docs))).errors).toEqual([]);
    const result = await json(await postJson(`${base}/fresh/search`, { mode: 'semantic', q: 'flow flutter panels', size: 2, select: ['id'] }));
    expect(result.hits.map((h: { id: string }) => h.id)).toEqual(['rare', 'common']);
    expect(result.hits[0].score).toBeGreaterThan(result.hits[1].score + 0.1);
  });
});

describe('builtin embedder versions', () => {
  const dataDir = tempDir();
  const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };
  const text = 'Transition of the laminar boundary layer on a flat plate';
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    // An index from before the versions: stored with embedder {type: "builtin"} and v1 vectors.
    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, {
      name: 'legacy',
      mappings: { title: { type: 'text' } },
      settings: { vectorDimensions: DIMS, autoEmbed: true, embedder: { type: 'builtin', model: 'hashed-ngrams-v1' } },
    });
    await postJson(`${base}/legacy/documents`, [
      { id: 'layer', title: text },
      { id: 'soup', title: 'Tomato soup with basil' },
    ]);
    await t.stop();
    const store = Store.open(dataDir);
    const indexes = store.namespace('search').db<{ settings: { embedder: Record<string, unknown> } }, [string, string]>('indexes');
    const record = indexes.get(['default', 'legacy'])!;
    await indexes.put(['default', 'legacy'], { ...record, settings: { ...record.settings, embedder: { type: 'builtin' } } });
    await store.close();
    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps querying and embedding a stored builtin setting without model with hashed-ngrams-v1', async () => {
    expect((await json(await fetch(`${base}/legacy`))).index.settings.embedder).toEqual({ type: 'builtin' });
    const byQ = await json(await postJson(`${base}/legacy/search`, { mode: 'semantic', q: text, size: 1, select: ['id'] }));
    expect(byQ.hits[0]).toMatchObject({ id: 'layer', score: expect.closeTo(1, 5) });
    await postJson(`${base}/legacy/documents`, [{ id: 'later', title: 'Hypersonic heat transfer' }]);
    const byVector = await json(
      await postJson(`${base}/legacy/search`, { mode: 'semantic', vector: Array.from(embedText('Hypersonic heat transfer', DIMS)), size: 1, select: ['id'] }),
    );
    expect(byVector.hits[0]).toMatchObject({ id: 'later', score: expect.closeTo(1, 5) });
  });

  it('re-embeds every document when PATCH changes the model, and not when it re-sends the same one', async () => {
    const patched = await json(await patchJson(`${base}/legacy`, { settings: { embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } } }));
    expect(patched.reindexed).toBe(true);
    expect(patched.index.settings.embedder).toEqual({ type: 'builtin', model: 'hashed-ngrams-v2' });
    for (const [id, title] of [
      ['layer', text],
      ['later', 'Hypersonic heat transfer'],
    ]) {
      const found = await json(
        await postJson(`${base}/legacy/search`, { mode: 'semantic', vector: Array.from(embedDocument(title!, DIMS)), size: 1, select: ['id'] }),
      );
      expect(found.hits[0]).toMatchObject({ id, score: expect.closeTo(1, 5) });
    }
    const again = await json(await patchJson(`${base}/legacy`, { settings: { embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } } }));
    expect(again.reindexed).toBe(false);
  });
});
