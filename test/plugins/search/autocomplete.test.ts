import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { loadWordnet, wordnetAvailable, type WordnetSynset } from './support/wordnet.js';

/**
 * Autocomplete over HTTP on a WordNet sample (every 40th synset: ~2,900 titles over all 45
 * lexnames), title as the `document` source and lexname as a keyword `category`.
 */
const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };
const mappings = { title: { type: 'text' }, text: { type: 'text' }, lexname: { type: 'keyword' } };

interface Suggestion {
  text: string;
  type: string;
  score: number;
  count: number;
  docId?: string;
  payload?: Record<string, unknown>;
}

describe.skipIf(!wordnetAvailable())('autocomplete on WordNet', () => {
  let t: TestApp;
  let dataDir: string;
  let synsets: WordnetSynset[];
  const base = () => `${t.url()}/v1/indexes/wordnet`;
  const get = async (q: string, extra = ''): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${base()}/autocomplete?q=${encodeURIComponent(q)}${extra}`);
    return { status: res.status, body: await json(res) };
  };
  const post = async (body: unknown): Promise<{ status: number; body: any }> => {
    const res = await postJson(`${base()}/autocomplete`, body);
    return { status: res.status, body: await json(res) };
  };
  const texts = (s: Suggestion[]) => s.map((x) => `${x.type}:${x.text}`);

  beforeAll(async () => {
    synsets = loadWordnet({ stride: 40 });
    dataDir = tempDir();
    t = await createTestApp(manifest, { dataDir });
    expect((await postJson(`${t.url()}/v1/indexes`, { name: 'wordnet', mappings })).status).toBe(200);
    const written = await json(await postJson(`${base()}/documents`, synsets));
    expect(written.indexed).toBe(synsets.length);
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes a prefix with the titles holding a word that starts with it, those starting with it first, each with its docId', async () => {
    const { status, body } = await get('electr', '&size=100');
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.query).toBe('electr');
    const starting = synsets.filter((s) => s.title.toLowerCase().startsWith('electr'));
    const inside = synsets.filter((s) => !s.title.toLowerCase().startsWith('electr') && /\belectr/i.test(s.title));
    expect(inside.length).toBeGreaterThan(0);
    const documents = (body.suggestions as Suggestion[]).filter((s) => s.type === 'document');
    expect(
      documents
        .slice(0, starting.length)
        .map((d) => d.docId)
        .sort(),
    ).toEqual(starting.map((s) => s.id).sort());
    expect(
      documents
        .slice(starting.length)
        .map((d) => d.docId)
        .sort(),
    ).toEqual(inside.map((s) => s.id).sort());
    for (const d of documents) {
      expect(d).toEqual({ text: synsets.find((s) => s.id === d.docId)!.title, type: 'document', score: expect.any(Number), count: 1, docId: d.docId });
    }
    // Every suggestion starts with the prefix (whole-text starts rank first), best first.
    const scores = (body.suggestions as Suggestion[]).map((s) => s.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('suggests keyword values as categories with their document counts', async () => {
    const { body } = await get('noun.ani');
    const animals = synsets.filter((s) => s.lexname === 'noun.animal').length;
    expect(body.suggestions[0]).toEqual({ text: 'noun.animal', type: 'category', score: expect.any(Number), count: animals, payload: { field: 'lexname' } });
  });

  it('suggests frequent phrases of the text fields', async () => {
    const { body } = await post({ q: 'genus', size: 50, includeDocuments: false, includeCategories: false });
    const phrases = (body.suggestions as Suggestion[]).filter((s) => s.type === 'phrase');
    expect(phrases.length).toBeGreaterThan(0);
    for (const p of phrases) {
      // Counted in documents: at least two glosses or titles contain it.
      const containing = synsets.filter((s) =>
        ` ${s.title} ${s.text} `
          .toLowerCase()
          .replace(/[^a-z0-9' ]+/g, ' ')
          .includes(` ${p.text} `),
      ).length;
      expect(p.count).toBeGreaterThanOrEqual(2);
      expect(containing).toBeGreaterThanOrEqual(p.count);
      expect(p.text.startsWith('genus ') || p.text.includes(' genus')).toBe(true);
    }
  });

  it('tolerates one typo from four characters and two from eight, ranked below exact prefix matches', async () => {
    // "elecrt" is "electr" with two letters swapped: one Damerau edit.
    const swapped = (await get('elecrt', '&size=100')).body.suggestions as Suggestion[];
    expect(swapped.map((s) => s.text)).toContain('electricity');
    // "mountian chinchila" -> "mountain chinchilla": the context word is exact, the last has one deletion.
    const one = (await get('mountain chinchila')).body.suggestions as Suggestion[];
    expect(one[0]!.text).toBe('mountain chinchilla, mountain viscacha');
    // Two edits from eight characters: "photometrsit" (swap) with "photometr" also an exact prefix.
    const two = (await get('photomtrist', '&size=20')).body.suggestions as Suggestion[];
    expect(two.map((s) => s.text)).toContain('photometrist, photometrician');
    // Three characters allow no edit.
    expect((await get('zqx')).body.suggestions).toEqual([]);
    // Exact prefix matches outrank typo'd ones: "comp" completes exactly before "camp"/"cmp" variants.
    const mixed = (await get('compa', '&size=100')).body.suggestions as Suggestion[];
    const firstFuzzy = mixed.findIndex(
      (s) =>
        !s.text
          .toLowerCase()
          .split(/[^a-z]+/)
          .some((w) => w.startsWith('compa')),
    );
    const lastExact = mixed
      .map((s) =>
        s.text
          .toLowerCase()
          .split(/[^a-z]+/)
          .some((w) => w.startsWith('compa')),
      )
      .lastIndexOf(true);
    expect(firstFuzzy === -1 || lastExact < firstFuzzy).toBe(true);
  });

  it('ignores case and diacritics', async () => {
    const plain = (await get('electr')).body.suggestions;
    expect((await get('ÉLECTR')).body.suggestions).toEqual(plain);
  });

  it('narrows by the words before the last: phrases and titles containing them rank first', async () => {
    const { body } = await get('mountain z');
    expect(body.suggestions[0]).toMatchObject({ text: 'mountain zebra, Equus zebra zebra', type: 'document', docId: 'n02394025' });
  });

  it('removes the types of each include flag set to false', async () => {
    const all = (await post({ q: 'noun', size: 100 })).body.suggestions as Suggestion[];
    expect(new Set(all.map((s) => s.type))).toEqual(new Set(['category', 'document', 'phrase']));
    const noCategories = (await post({ q: 'noun', size: 100, includeCategories: false })).body.suggestions as Suggestion[];
    expect(noCategories.some((s) => s.type === 'category')).toBe(false);
    expect(noCategories.length).toBeGreaterThan(0);
    const noDocuments = (await post({ q: 'electr', includeDocuments: false })).body.suggestions as Suggestion[];
    expect(noDocuments.some((s) => s.type === 'document')).toBe(false);
    // No visual or graph source exists here: the flags change nothing else.
    expect((await post({ q: 'electr', includeVisualTags: false, includeGraphEntities: false })).body).toEqual((await get('electr')).body);
  });

  it('answers 10 suggestions by default and up to size, and refuses a bad size or q', async () => {
    expect((await get('a')).body.suggestions).toHaveLength(10);
    expect((await get('a', '&size=100')).body.suggestions).toHaveLength(100);
    const tooMany = await get('a', '&size=101');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('validation_failed');
    const bad: Array<[Response, string]> = [
      [await fetch(`${base()}/autocomplete`), 'query.q'],
      [await fetch(`${base()}/autocomplete?q=%20`), 'query.q'],
      [await postJson(`${base()}/autocomplete`, { q: '' }), 'body.q'],
      [await postJson(`${base()}/autocomplete`, {}), 'body.q'],
    ];
    for (const [res, path] of bad) {
      expect(res.status).toBe(400);
      const error = (await json(res)).error;
      expect(error.code).toBe('validation_failed');
      expect(error.details.issues[0].path).toBe(path);
    }
    expect((await post({ q: 'a', size: 0 })).status).toBe(400);
    const missing = await fetch(`${t.url()}/v1/indexes/nope/autocomplete?q=a`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('index_not_found');
  });

  it('keeps up with writes and deletes, and suggests past searches that found something', async () => {
    expect((await get('zyzzyva')).body.suggestions).toEqual([]);
    await postJson(`${base()}/documents`, [{ id: 'x1', title: 'zyzzyva weevil', text: 'a tropical weevil', lexname: 'noun.animal' }]);
    expect(texts((await get('zyzz')).body.suggestions)).toContain('document:zyzzyva weevil');
    await postJson(`${base()}/documents`, [{ id: 'x1', title: 'zyzzyva snout beetle', text: 'a tropical weevil', lexname: 'noun.animal' }]);
    const renamed = texts((await get('zyzz')).body.suggestions);
    expect(renamed).toContain('document:zyzzyva snout beetle');
    expect(renamed).not.toContain('document:zyzzyva weevil');
    expect((await fetch(`${base()}/documents/x1`, { method: 'DELETE' })).status).toBe(200);
    expect((await get('zyzz')).body.suggestions).toEqual([]);

    // A search with hits is logged; one without is not.
    expect((await json(await postJson(`${base()}/search`, { q: 'electric current' }))).total).toBeGreaterThan(0);
    expect((await json(await postJson(`${base()}/search`, { q: 'electroqqq' }))).total).toBe(0);
    const logged = (await get('electric c')).body.suggestions as Suggestion[];
    expect(logged[0]).toEqual({ text: 'electric current', type: 'query', score: expect.any(Number), count: 1 });
    expect(logged.some((s) => s.text === 'electroqqq')).toBe(false);
    await postJson(`${base()}/search`, { q: 'Electric  current' });
    expect(((await get('electric c')).body.suggestions as Suggestion[])[0]).toMatchObject({ type: 'query', count: 2 });
  });

  it('survives a restart: documents rebuilt, past searches kept; a dropped index takes its searches', async () => {
    const before = (await get('electric')).body;
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    expect((await get('electric')).body).toEqual(before);
    expect((await get('electric c')).body.suggestions[0]).toMatchObject({ text: 'Electric current', type: 'query', count: 2 });
    expect((await fetch(base(), { method: 'DELETE' })).status).toBe(200);
    await postJson(`${t.url()}/v1/indexes`, { name: 'wordnet', mappings });
    expect((await get('electric')).body.suggestions).toEqual([]);
  });
});
