import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, tempDir, type TestApp } from '../../helpers/app.js';
import { cityId, citiesAvailable, countryId, geonamesGraph, loadCities, regionId, type City } from './geonames-graph.js';

const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search', 'graph'] }], plugins: { search: {}, graph: {} } };

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return { status: res.status, body: await json(res) };
}

describe.skipIf(!citiesAvailable())('knowledge graph over HTTP, on GeoNames (Luxembourg and Andorra)', () => {
  let t: TestApp;
  let dataDir: string;
  let cities: City[];
  const index = () => `${t.url()}/v1/indexes/places`;
  const graph = () => `${index()}/graph`;
  const search = (body: unknown) => call('POST', `${graph()}/search`, body);

  beforeAll(async () => {
    cities = loadCities(['LU', 'AD']);
    dataDir = tempDir();
    t = await createTestApp(manifest, { dataDir });
    await postJson(`${t.url()}/v1/indexes`, { name: 'places', mappings: { name: { type: 'text' }, country: { type: 'keyword' } } });
    await postJson(
      `${index()}/documents`,
      cities.map((c) => ({ id: String(c.id), name: c.name, country: c.country })),
    );
    const { entities, triples } = geonamesGraph(cities);
    const wroteEntities = await call('POST', `${graph()}/entities`, { entities });
    expect(wroteEntities).toEqual({ status: 200, body: { ok: true, added: entities.length, updated: 0 } });
    const wroteTriples = await call('POST', `${graph()}/triples`, { triples });
    expect(wroteTriples).toEqual({ status: 200, body: { ok: true, added: triples.length, updated: 0 } });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('resolves a name and walks one hop by default: the city, then its region', async () => {
    const wiltz = cities.find((c) => c.name === 'Wiltz')!;
    const { status, body } = await search({ query: 'wiltz' });
    expect(status).toBe(200);
    expect(body.ok).toBe(true);
    expect(body.entities.map((e: { id: string; hops: number; score: number }) => [e.id, e.hops, e.score])).toEqual([
      [cityId(wiltz), 0, 1],
      [regionId(wiltz), 1, 0.5],
    ]);
    expect(body.entities[0]).toMatchObject({ name: 'Wiltz', type: 'city', docIds: [String(wiltz.id)] });
    expect(body.edges).toEqual([{ subject: cityId(wiltz), predicate: 'located_in', object: regionId(wiltz), weight: 1 }]);
    expect(body.expandedTerms).toEqual(['Wiltz', `LU-${wiltz.adminCode}`]);
    expect(body.relatedDocIds).toEqual([String(wiltz.id)]);
  });

  it('walks both directions up to maxHops, each entity once at its fewest hops, filtered by types', async () => {
    const vianden = cities.find((c) => c.name === 'Vianden')!;
    const region = cities.filter((c) => regionId(c) === regionId(vianden));
    const regions = new Set(cities.filter((c) => c.country === 'LU').map(regionId));
    const { body } = await search({ query: 'Vianden', maxHops: 2, limit: 1000 });
    const got = new Map<string, number>(body.entities.map((e: { id: string; hops: number }) => [e.id, e.hops]));
    const expected = new Map<string, number>([
      [cityId(vianden), 0],
      [regionId(vianden), 1],
      [countryId(vianden), 2],
    ]);
    for (const c of region) if (c !== vianden) expected.set(cityId(c), 2);
    expect(got).toEqual(expected);
    // Three hops reach every region of the country (through the country) and no further city of another region.
    const three = await search({ query: 'Vianden', maxHops: 3, limit: 1000, types: ['region'] });
    expect(new Set(three.body.entities.map((e: { id: string }) => e.id))).toEqual(regions);
    expect(three.body.edges).toEqual([]);
    // limit keeps the best: the city itself, then its region.
    expect((await search({ query: 'Vianden', maxHops: 3, limit: 2 })).body.entities.map((e: { id: string }) => e.id)).toEqual([
      cityId(vianden),
      regionId(vianden),
    ]);
  });

  it('resolves case- and diacritic-insensitively, several entities from one query, then by prefix, then by typo', async () => {
    const julia = cities.find((c) => c.name === 'Sant Julià de Lòria')!;
    const exact = await search({ query: 'SANT JULIA DE LORIA', maxHops: 0 });
    expect(exact.body.entities.map((e: { id: string }) => e.id)).toEqual([cityId(julia)]);
    const two = await search({ query: 'from wiltz to vianden', maxHops: 0 });
    expect(two.body.entities.map((e: { name: string }) => e.name).sort()).toEqual(['Vianden', 'Wiltz']);
    const prefix = await search({ query: 'wilw', maxHops: 0 });
    expect(prefix.body.entities.map((e: { name: string }) => e.name)).toEqual(['Wilwerwiltz']);
    const typo = await search({ query: 'viandne', maxHops: 0 });
    expect(typo.body.entities.map((e: { name: string }) => e.name)).toEqual(['Vianden']);
    expect((await search({ query: 'qqqqqqq' })).body).toEqual({ ok: true, entities: [], expandedTerms: [], relatedDocIds: [], edges: [] });
  });

  it('answers relatedDocIds only for documents that still exist', async () => {
    const wahl = cities.find((c) => c.name === 'Wahl')!;
    expect((await search({ query: 'wahl', maxHops: 0 })).body.relatedDocIds).toEqual([String(wahl.id)]);
    await fetch(`${index()}/documents/${wahl.id}`, { method: 'DELETE' });
    expect((await search({ query: 'wahl', maxHops: 0 })).body.relatedDocIds).toEqual([]);
  });

  it('upserts entities by id and triples by (subject, predicate, object), updating the weight', async () => {
    const e = { id: 'river:sure', name: 'Sûre', type: 'river', aliases: ['Sauer'] };
    expect((await call('POST', `${graph()}/entities`, { entities: [e] })).body).toEqual({ ok: true, added: 1, updated: 0 });
    expect((await call('POST', `${graph()}/entities`, { entities: [{ ...e, aliases: ['Sauer', 'Sura'] }] })).body).toEqual({ ok: true, added: 0, updated: 1 });
    const wiltz = cities.find((c) => c.name === 'Wiltz')!;
    const triple = { subject: 'river:sure', predicate: 'flows_near', object: cityId(wiltz) };
    expect((await call('POST', `${graph()}/triples`, { triples: [triple] })).body).toEqual({ ok: true, added: 1, updated: 0 });
    expect((await call('POST', `${graph()}/triples`, { triples: [{ ...triple, weight: 3 }] })).body).toEqual({ ok: true, added: 0, updated: 1 });
    const read = await call('GET', `${graph()}/entities/river:sure`);
    expect(read.body).toEqual({ ok: true, entity: { ...e, aliases: ['Sauer', 'Sura'] }, triples: [{ ...triple, weight: 3 }], mentionedIn: [] });
    // Weight 3 carries 3/4 of the score across the triple; an alias resolves.
    const found = await search({ query: 'sura' });
    expect(found.body.entities.map((x: { id: string; score: number }) => [x.id, x.score])).toEqual([
      ['river:sure', 1],
      [cityId(wiltz), 0.75],
    ]);
    // Deleting the entity deletes its triples.
    expect((await call('DELETE', `${graph()}/entities/river:sure`)).body).toEqual({ ok: true, deleted: 'river:sure', triplesDeleted: 1 });
    expect((await call('GET', `${graph()}/entities/river:sure`)).body.error.code).toBe('entity_not_found');
    expect((await call('GET', `${graph()}/entities/${cityId(wiltz)}`)).body.triples).toEqual([
      { subject: cityId(wiltz), predicate: 'located_in', object: regionId(wiltz), weight: 1 },
    ]);
  });

  it('deletes triples by key, and counts entities and triples by type and predicate', async () => {
    const before = (await call('GET', `${graph()}/stats`)).body.stats;
    const lu = cities.filter((c) => c.country === 'LU');
    expect(before.types.city).toBe(cities.length);
    expect(before.types.country).toBe(2);
    expect(before.predicates.located_in).toBe(cities.length);
    const key = { subject: cityId(lu[0]!), predicate: 'located_in', object: regionId(lu[0]!) };
    expect((await call('DELETE', `${graph()}/triples`, { triples: [key, key, { ...key, predicate: 'nope' }] })).body).toEqual({ ok: true, deleted: 1 });
    expect((await call('GET', `${graph()}/stats`)).body.stats.predicates.located_in).toBe(cities.length - 1);
    await call('POST', `${graph()}/triples`, { triples: [key] });
  });

  it('refuses bad items with their positions, unknown entities, bad weights and hops', async () => {
    const bad = await call('POST', `${graph()}/entities`, {
      entities: [
        { id: 'a', name: 'A', type: 't' },
        { id: 'b', type: 't' },
        { id: '', name: 'C', type: 't' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(['body.entities[1].name', 'body.entities[2].id']);
    expect((await call('GET', `${graph()}/entities/a`)).status).toBe(404);
    const unknown = await call('POST', `${graph()}/triples`, {
      triples: [
        { subject: 'ghost', predicate: 'p', object: 'country:LU' },
        { subject: 'country:LU', predicate: 'p', object: 'phantom' },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_entity', details: { index: 'places', ids: ['ghost', 'phantom'] } });
    // As the JSON text is sent: 1e999 parses to Infinity.
    for (const weight of ['-1', '1e999', '"heavy"']) {
      const r = await fetch(`${graph()}/triples`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"triples":[{"subject":"country:LU","predicate":"p","object":"country:AD","weight":${weight}}]}`,
      });
      expect(r.status).toBe(400);
      expect((await json(r)).error.details.issues[0].path).toBe('body.triples[0].weight');
    }
    const hops = await search({ query: 'wiltz', maxHops: 6 });
    expect(hops.status).toBe(400);
    expect(hops.body.error.details.issues[0].path).toBe('body.maxHops');
    expect((await search({})).status).toBe(400);
    expect((await call('POST', `${t.url()}/v1/indexes/nowhere/graph/search`, { query: 'x' })).body.error.code).toBe('index_not_found');
  });

  it('offers entities and their aliases to autocomplete, with the entity id in the payload', async () => {
    const got = await json(await fetch(`${index()}/autocomplete?q=wilw&size=5`));
    // One suggestion per text: "Wilwerwiltz" is both a title and an entity, and the entity ranks
    // higher; "Wiltz" is one typo away ("wilt"), so it follows.
    expect(got.suggestions.map((s: { type: string; text: string }) => `${s.type}:${s.text}`)).toEqual(['entity:Wilwerwiltz', 'entity:Wiltz']);
    expect(got.suggestions[0]).toMatchObject({ payload: { entityId: cityId(cities.find((c) => c.name === 'Wilwerwiltz')!), entityType: 'city' } });
    const without = await json(await postJson(`${index()}/autocomplete`, { q: 'wilw', includeGraphEntities: false }));
    expect(without.suggestions.map((s: { type: string; text: string }) => `${s.type}:${s.text}`)).toEqual(['document:Wilwerwiltz', 'document:Wiltz']);
  });

  it('answers 400 feature_disabled on every graph endpoint when the index turns the graph off', async () => {
    await postJson(`${t.url()}/v1/indexes`, { name: 'plain', settings: { enableKnowledgeGraph: false } });
    const base = `${t.url()}/v1/indexes/plain/graph`;
    const calls = [
      call('POST', `${base}/entities`, { entities: [{ id: 'a', name: 'A', type: 't' }] }),
      call('POST', `${base}/triples`, { triples: [{ subject: 'a', predicate: 'p', object: 'a' }] }),
      call('POST', `${base}/search`, { query: 'a' }),
      call('GET', `${base}/entities/a`),
      call('DELETE', `${base}/entities/a`),
      call('DELETE', `${base}/triples`, { triples: [{ subject: 'a', predicate: 'p', object: 'a' }] }),
      call('GET', `${base}/stats`),
    ];
    for (const r of await Promise.all(calls)) expect([r.status, r.body.error.code]).toEqual([400, 'feature_disabled']);
  });

  it('survives a restart, and is deleted with its index', async () => {
    const before = await search({ query: 'vianden', maxHops: 2, limit: 100 });
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    expect(await search({ query: 'vianden', maxHops: 2, limit: 100 })).toEqual(before);
    expect((await fetch(index(), { method: 'DELETE' })).status).toBe(200);
    await postJson(`${t.url()}/v1/indexes`, { name: 'places' });
    expect((await call('GET', `${graph()}/stats`)).body.stats).toEqual({ entities: 0, triples: 0, types: {}, predicates: {} });
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    expect((await call('GET', `${graph()}/stats`)).body.stats.entities).toBe(0);
  });
});
