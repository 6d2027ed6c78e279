import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishAnalyzer } from '../../../plugins/search/analysis/analyzer.js';
import { decodeCorpusLsa, embedCorpusLsa, encodeCorpusLsa, trainCorpusLsa } from '../../../plugins/search/embedders/corpus-lsa.js';
import { randomizedSvd, symmetricEigen } from '../../../plugins/search/embedders/randomized-svd.js';
import { createTestApp, json, postJson, tempDir } from '../../helpers/app.js';

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

// Two topics; "lift" and "soup" each occur with their topic's other words, never with the other's.
const corpus = [
  'Lift of a swept wing at supersonic speed',
  'Airfoil drag and lift in a wind tunnel',
  'Pressure distribution over an airfoil and a wing',
  'Supersonic airfoil drag measured in a tunnel',
  'Tomato soup with basil and garlic',
  'A recipe for garlic bread and tomato salad',
  'Basil pesto, garlic and olive oil recipe',
  'Soup of onion with bread and cheese',
];

describe('randomizedSvd', () => {
  it('finds the leading singular values and orthonormal vectors of an exact reference', async () => {
    // 60 x 40 of rank 4 plus a little noise, checked against the eigenvalues of A^T A by Jacobi.
    let seed = 7;
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32 - 0.5;
    const m = 60,
      n = 40,
      strengths = [9, 6, 4, 2];
    const u = strengths.map(() => Array.from({ length: m }, rand));
    const v = strengths.map(() => Array.from({ length: n }, rand));
    const dense = Array.from({ length: n }, (_, c) =>
      Array.from({ length: m }, (_, r) => strengths.reduce((s, w, k) => s + w * u[k]![r]! * v[k]![c]!, 0) + 0.001 * rand()),
    );
    const A = { rowCount: m, rows: dense.map(() => Int32Array.from({ length: m }, (_, r) => r)), values: dense.map((col) => Float64Array.from(col)) };
    const { U, sigma } = await randomizedSvd(A, 3, 1);
    const gram = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) gram[a * n + b] = cosine(dense[a]!, dense[b]!);
    const exact = [...(await symmetricEigen(gram, n)).values]
      .sort((a, b) => b - a)
      .slice(0, 3)
      .map(Math.sqrt);
    for (let j = 0; j < 3; j++) expect(sigma[j]).toBeCloseTo(exact[j]!, 6);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        const dot = Array.from({ length: m }, (_, r) => U[r * 3 + a]! * U[r * 3 + b]!).reduce((s, x) => s + x, 0);
        expect(dot).toBeCloseTo(a === b ? 1 : 0, 8);
      }
    }
  });
});

describe('corpus-lsa-v1 model', () => {
  // Two dimensions for two topics: the reduction is what relates words that never meet.
  let model: Awaited<ReturnType<typeof trainCorpusLsa>>;
  beforeAll(async () => {
    model = await trainCorpusLsa(corpus, [englishAnalyzer], 2);
  });
  const embed = (text: string): Float32Array => embedCorpusLsa(model, text, [englishAnalyzer]);

  it('puts a query near documents of its topic that do not contain its word', () => {
    const q = embed('lift');
    expect(cosine(q, embed(corpus[3]!))).toBeGreaterThan(cosine(q, embed(corpus[6]!)) + 0.3);
    const soup = embed('soup');
    expect(cosine(soup, embed(corpus[6]!))).toBeGreaterThan(cosine(soup, embed(corpus[3]!)) + 0.3);
  });

  it('is deterministic, unit length, and zero for text it has no term of', async () => {
    const again = await trainCorpusLsa(corpus, [englishAnalyzer], 2);
    expect([...again.vectors]).toEqual([...model.vectors]);
    expect(model.rank).toBe(2);
    expect(cosine(embed(corpus[0]!), embed(corpus[0]!))).toBeCloseTo(1, 5);
    expect([...embed('quantum chromodynamics')]).toEqual([0, 0]);
  });

  it('embeds the same after a round trip through its stored bytes', () => {
    const decoded = decodeCorpusLsa(encodeCorpusLsa(model));
    expect({ ...decoded, terms: [...decoded.terms] }).toEqual({ ...model, terms: [...model.terms] });
    expect([...embedCorpusLsa(decoded, corpus[1]!, [englishAnalyzer])]).toEqual([...embed(corpus[1]!)]);
  });
});

describe('corpus-lsa-v1 over HTTP', () => {
  const dataDir = tempDir();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };
  const docs = corpus.map((text, i) => ({ id: `d${i}`, text }));
  const semantic = async (base: string, q: string) =>
    (await json(await postJson(`${base}/lab/search`, { mode: 'semantic', q, size: 8 }))).hits.map((h: { id: string; score: number }) => [h.id, h.score]);

  it('embeds with hashed-ngrams-v2 until trained, then with the model stored in LMDB across a restart', async () => {
    let t = await createTestApp(manifest, { dataDir });
    let base = `${t.url()}/v1/indexes`;
    const created = await json(
      await postJson(base, {
        name: 'lab',
        mappings: { text: { type: 'text', analyzer: 'english' } },
        settings: { vectorDimensions: 2, autoEmbed: true, embedder: { type: 'builtin', model: 'corpus-lsa-v1' } },
      }),
    );
    expect(created.index.settings.embedder).toEqual({ type: 'builtin', model: 'corpus-lsa-v1' });
    expect((await json(await postJson(`${base}/lab/documents`, docs))).errors).toEqual([]);
    expect((await json(await fetch(`${base}/lab`))).index.stats.embedder).toEqual({ model: 'corpus-lsa-v1', trained: false });
    const before = await semantic(base, 'lift');

    const trained = await json(await postJson(`${base}/lab/embedder/train`, {}));
    expect(trained.index.docCount).toBe(8);
    expect(trained.index.stats.embedder).toEqual({
      model: 'corpus-lsa-v1',
      trained: true,
      docs: 8,
      terms: expect.any(Number),
      rank: 2,
      trainedAt: expect.any(String),
    });
    const after = await semantic(base, 'lift');
    expect(after).not.toEqual(before);
    // Documents 0 and 1 contain "lift"; 2 and 3 share the topic only.
    expect(
      after
        .slice(0, 4)
        .map(([id]: [string]) => id)
        .sort(),
    ).toEqual(['d0', 'd1', 'd2', 'd3']);
    await t.stop();

    t = await createTestApp(manifest, { dataDir });
    base = `${t.url()}/v1/indexes`;
    expect((await json(await fetch(`${base}/lab`))).index.stats.embedder).toEqual(trained.index.stats.embedder);
    expect(await semantic(base, 'lift')).toEqual(after);

    // Another model re-embeds and forgets the trained one.
    const patched = await json(
      await fetch(`${base}/lab`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ settings: { embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } } }),
      }),
    );
    expect(patched.reindexed).toBe(true);
    expect(patched.index.stats.embedder).toBeUndefined();
    expect(await semantic(base, 'lift')).toEqual(before);
    await t.stop();
  });

  it('keeps answering other requests while it trains', async () => {
    const t = await createTestApp(manifest);
    const base = `${t.url()}/v1/indexes`;
    // 2,400 documents over a 3,000-word vocabulary: a training of a second or more.
    let seed = 3;
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const word = (): string => `w${Math.floor(rand() * rand() * 3000).toString(36)}x`;
    const many = Array.from({ length: 2400 }, (_, i) => ({ id: `m${i}`, text: Array.from({ length: 40 }, word).join(' ') }));
    await postJson(base, {
      name: 'big',
      mappings: { text: { type: 'text' } },
      settings: { vectorDimensions: 256, autoEmbed: true, embedder: { type: 'builtin', model: 'corpus-lsa-v1' } },
    });
    expect((await json(await postJson(`${base}/big/documents`, many))).errors).toEqual([]);
    const training = postJson(`${base}/big/embedder/train`, {}).then((res) => json(res));
    // Let the training start before asking.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const health = await fetch(`${t.url()}/health`);
    const answeredAt = Date.now();
    expect(health.status).toBe(200);
    expect((await training).index.stats.embedder).toMatchObject({ trained: true, docs: 2400 });
    // A training that held the event loop would have kept /health waiting until it finished.
    const finished = t.logs.find((l) => l.msg === 'embedder model trained')!;
    expect(finished.ms as number).toBeGreaterThan(500);
    expect(answeredAt).toBeLessThan(finished.time as number);
    await t.stop();
  });

  it('refuses to train an index whose embedder does not learn, with 400 validation_failed', async () => {
    const t = await createTestApp(manifest);
    const base = `${t.url()}/v1/indexes`;
    await postJson(base, {
      name: 'plain',
      mappings: { text: { type: 'text' } },
      settings: { vectorDimensions: 8, autoEmbed: true, embedder: { type: 'builtin', model: 'hashed-ngrams-v2' } },
    });
    const res = await postJson(`${base}/plain/embedder/train`, {});
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: 'validation_failed',
      details: { issues: [{ path: 'settings.embedder.model', message: 'must be corpus-lsa-v1 to train' }] },
    });
    const missing = await postJson(`${base}/nope/embedder/train`, {});
    expect(missing.status).toBe(404);
    expect((await json(missing)).error).toMatchObject({ code: 'index_not_found', details: { index: 'nope' } });
    await t.stop();
  });
});
