import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, tempDir, type TestApp } from '../../helpers/app.js';
import { loadWordnet, wordnetAvailable, type WordnetSynset } from '../search/support/wordnet.js';

const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search', 'graph'] }], plugins: { search: {}, graph: {} } };

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return { status: res.status, body: await json(res) };
}

const lemmas = (s: WordnetSynset): string[] => s.title.split(',').map((l) => l.trim().replace(/_/g, ' '));
const wordIn = (text: string, word: string): boolean => new RegExp(`(^|[^a-z])${word}([^a-z]|$)`, 'i').test(text);

/**
 * The graph of WordNet's synonyms: one entity per synset of several lemmas (its first lemma the
 * name, the others aliases), linked to the synset's gloss as its document.
 */
function synonymGraph(synsets: readonly WordnetSynset[]) {
  return synsets
    .filter((s) => lemmas(s).length > 1)
    .map((s) => ({ id: `s:${s.id}`, name: lemmas(s)[0]!, type: s.lexname, aliases: lemmas(s).slice(1), docIds: [s.id] }));
}

describe.skipIf(!wordnetAvailable())('graph-boosted search: expand "graph" over WordNet synonyms (glosses as documents)', () => {
  let t: TestApp;
  let dataDir: string;
  let synsets: WordnetSynset[];
  const index = () => `${t.url()}/v1/indexes/glosses`;
  const search = (body: unknown, name = 'glosses') => call('POST', `${t.url()}/v1/indexes/${name}/search`, body);
  /** A synset, a lemma of it no gloss holds, and another of its lemmas its own gloss and two others hold. */
  let target: { synset: WordnetSynset; query: string; through: string };
  let before: any;

  beforeAll(async () => {
    synsets = loadWordnet({ stride: 40 });
    dataDir = tempDir();
    t = await createTestApp(manifest, { dataDir });
    await call('POST', `${t.url()}/v1/indexes`, {
      name: 'glosses',
      mappings: { text: { type: 'text' } },
      settings: { autoEmbed: true, vectorDimensions: 64 },
    });
    await call(
      'POST',
      `${index()}/documents`,
      synsets.map(({ id, text }) => ({ id, text })),
    );
    const single = (l: string) => /^[a-z]{4,}$/.test(l);
    for (const s of synsets) {
      const ls = lemmas(s);
      const query = ls.find((l) => single(l) && !synsets.some((o) => wordIn(o.text, l)));
      const through = ls.find((l) => l !== query && single(l) && wordIn(s.text, l) && synsets.filter((o) => wordIn(o.text, l)).length >= 3);
      if (query && through) {
        target = { synset: s, query, through };
        break;
      }
    }
    expect(target).toBeDefined();
    before = await search({ q: `${target.query} ${target.through}`, size: 20 });
    const entities = synonymGraph(synsets);
    expect((await call('POST', `${index()}/graph/entities`, { entities })).body).toMatchObject({ ok: true, added: entities.length });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds through the graph a document the keyword query misses, and explain says how', async () => {
    const { synset, query, through } = target;
    const plain = await search({ q: query });
    expect(plain).toMatchObject({ status: 200, body: { ok: true, total: 0, hits: [] } });
    const expanded = await search({ q: query, expand: 'graph', explain: true, size: 50 });
    expect(expanded.status).toBe(200);
    const hit = expanded.body.hits.find((h: { id: string }) => h.id === synset.id);
    expect(hit).toBeDefined();
    const name = lemmas(synset)[0]!;
    expect(hit.explain.graph.boosted).toBe(true);
    expect(hit.explain.graph.terms).toContain(through);
    expect(hit.explain.graph.entities).toContain(name);
    expect(hit.highlight.text.join(' ').toLowerCase()).toContain(`<mark>${through}</mark>`);
    // Its score: the expanded terms it holds at weight 0.3, times the related documents' boost of 1.5.
    const same = await search({ q: hit.explain.graph.terms.map((term: string) => `"${term}"`).join(' '), operator: 'OR', size: 100 });
    const direct = same.body.hits.find((h: { id: string }) => h.id === synset.id);
    expect(hit.score).toBeCloseTo(direct.score * 0.3 * 1.5, 4);
    // Every hit came through the graph (q alone matches nothing), with the terms it holds.
    for (const h of expanded.body.hits) expect(h.explain.graph.terms.length).toBeGreaterThan(0);
  });

  it('applies to the keyword side of a hybrid search, with the graph beside the fusion in explain', async () => {
    const { synset, query, through } = target;
    const { status, body } = await search({ q: query, mode: 'hybrid', expand: 'graph', explain: true, size: 50 });
    expect(status).toBe(200);
    const hit = body.hits.find((h: { id: string }) => h.id === synset.id);
    expect(hit.explain.graph).toEqual({ terms: expect.arrayContaining([through]), boosted: true, entities: expect.arrayContaining([lemmas(synset)[0]]) });
    expect(hit.explain.fusion).toBe('convex');
    expect(hit.explain.keyword.rank).toBeGreaterThan(0);
  });

  it('weighs an expanded term at 0.3 of the same word written in q', async () => {
    const { query, through } = target;
    const direct = await search({ q: through, size: 100 });
    const viaGraph = await search({ q: query, expand: 'graph', explain: true, size: 100 });
    const scores = new Map<string, number>(direct.body.hits.map((h: { id: string; score: number }) => [h.id, h.score]));
    const only = viaGraph.body.hits.filter((h: any) => !h.explain.graph.boosted && h.explain.graph.terms.length === 1 && h.explain.graph.terms[0] === through);
    expect(only.length).toBeGreaterThan(0);
    for (const h of only) expect(h.score).toBeCloseTo(scores.get(h.id)! * 0.3, 4);
  });

  it('changes nothing without expand: the same hits and scores as before the graph was written', async () => {
    const after = await search({ q: `${target.query} ${target.through}`, size: 20 });
    expect(after.body.hits).toEqual(before.body.hits);
    expect(after.body.total).toBe(before.body.total);
  });

  it('excluded words of q exclude expanded matches too', async () => {
    const { synset, query } = target;
    const excluding = synset.text
      .toLowerCase()
      .split(/[^a-z]+/)
      .find((w) => w.length > 4);
    const { body } = await search({ q: `${query} -${excluding}`, expand: 'graph', size: 100 });
    expect(body.hits.map((h: { id: string }) => h.id)).not.toContain(synset.id);
  });

  it('refuses an unknown expansion, a mode it does not apply to, and an index with the graph off', async () => {
    const unknown = await search({ q: 'dog', expand: 'thesaurus' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('validation_failed');
    expect(unknown.body.error.details.issues).toEqual([{ path: 'expand', message: 'expected one of: graph' }]);
    const semantic = await search({ q: 'dog', mode: 'semantic', vector: [1], expand: 'graph' });
    expect(semantic.status).toBe(400);
    expect(semantic.body.error.details.issues[0].path).toBe('expand');
    await call('POST', `${t.url()}/v1/indexes`, { name: 'off', mappings: { text: { type: 'text' } }, settings: { enableKnowledgeGraph: false } });
    const off = await search({ q: 'dog', expand: 'graph' }, 'off');
    expect(off.status).toBe(400);
    expect(off.body.error.code).toBe('feature_disabled');
  });
});

describe('expand "graph" without the graph plugin', () => {
  it('is 400 validation_failed: no expansion of that name is offered', async () => {
    const t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    try {
      await call('POST', `${t.url()}/v1/indexes`, { name: 'plain', mappings: { text: { type: 'text' } } });
      const { status, body } = await call('POST', `${t.url()}/v1/indexes/plain/search`, { q: 'dog', expand: 'graph' });
      expect(status).toBe(400);
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.details.issues).toEqual([{ path: 'expand', message: 'expected one of: (none registered)' }]);
    } finally {
      await t.stop();
    }
  });
});
