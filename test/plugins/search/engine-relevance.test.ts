import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';
import { cranfieldAvailable, loadCranfield } from './support/cranfield.js';
import { ndcgAt } from './support/ndcg.js';

const available = cranfieldAvailable();

/** The bar, through the whole engine: HTTP, analysis, segments, BM25 on the kernels. */
describe.skipIf(!available)('Cranfield relevance through the search API', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'cranfield', mappings: { title: { type: 'text', analyzer: 'english' }, text: { type: 'text', analyzer: 'english' } } });
    const { docs } = loadCranfield();
    // Several requests, so the index has several segments, as a real one does.
    for (let i = 0; i < docs.length; i += 500) {
      const res = await json(await postJson(`${base}/cranfield/documents`, docs.slice(i, i + 500)));
      expect(res.errors).toEqual([]);
    }
  });
  afterAll(() => t.stop());

  it('reaches nDCG@10 of at least 0.36 over all 225 queries', async () => {
    const { queries, qrels } = loadCranfield();
    let sum = 0;
    for (const query of queries) {
      const res = await fetch(`${base}/cranfield/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ q: query.text, size: 10, highlight: false, select: ['id'] }),
      });
      const body = await json(res);
      sum += ndcgAt(
        10,
        body.hits.map((h: { id: string }) => h.id),
        qrels.get(query.id) ?? new Map(),
      );
    }
    const ndcg = sum / queries.length;
    console.log(`Cranfield nDCG@10 through the search API: ${ndcg.toFixed(4)}`);
    expect(ndcg).toBeGreaterThanOrEqual(0.36);
  });
});

describe.runIf(!available)('Cranfield relevance through the search API', () => {
  it('skips: ../shared/data/cranfield is missing', () => {
    expect(available).toBe(false);
  });
});
