import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

// The graph plugin's GRAPH_SERVICE, as a dependent plugin (the agent's code index) uses it.
describe('the graph service (GRAPH_SERVICE)', () => {
  let t: TestApp;
  let base: string;
  const entity = (id: string, type = 'function') => ({ id, name: id.split('#').at(-1)!, type });
  const all = async (tenant: string, index: string) => json(await fetch(`${base}/consumer/${tenant}/${index}/all`));

  beforeAll(async () => {
    t = await createTestApp({
      listeners: [{ name: 'main', port: 0, plugins: ['graph-consumer', 'search', 'graph'] }],
      plugins: { search: {}, graph: {}, 'graph-consumer': { module: './plugins/graph-consumer/index.js' } },
    });
    base = t.url();
  });
  afterAll(() => t.stop());

  it('writes entities and triples in one batch, and refuses the whole batch when a triple names no entity', async () => {
    const first = await json(
      await postJson(`${base}/consumer/default/code/write`, {
        entities: [entity('m', 'module'), entity('m#a'), entity('m#b'), entity('m#c')],
        triples: [
          { subject: 'm', predicate: 'contains', object: 'm#a', weight: 0.5 },
          { subject: 'm#a', predicate: 'calls', object: 'm#b', weight: 2 },
          { subject: 'm#c', predicate: 'calls', object: 'm#a', weight: 1 },
        ],
      }),
    );
    expect(first).toEqual({ ok: true, entities: { added: 4, updated: 0, removed: 0 }, triples: { added: 3, updated: 0, removed: 0 } });
    const refused = await postJson(`${base}/consumer/default/code/write`, {
      entities: [entity('m#d')],
      triples: [{ subject: 'm#d', predicate: 'calls', object: 'm#nowhere', weight: 1 }],
    });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error).toMatchObject({ code: 'unknown_entity', details: { index: 'code', ids: ['m#nowhere'] } });
    expect((await all('default', 'code')).entities).toEqual(['m', 'm#a', 'm#b', 'm#c']);
  });

  it('answers neighbours by predicate and direction, heaviest first', async () => {
    const of = async (q: string) => (await json(await fetch(`${base}/consumer/default/code/neighbours/m%23a${q}`))).neighbours;
    const both = await of('');
    expect(both.map((n: any) => [n.entity.id, n.predicate, n.direction, n.weight])).toEqual([
      ['m#b', 'calls', 'out', 2],
      ['m#c', 'calls', 'in', 1],
      ['m', 'contains', 'in', 0.5],
    ]);
    expect((await of('?predicate=calls&direction=in')).map((n: any) => n.entity.id)).toEqual(['m#c']);
    expect((await of('?predicate=calls&direction=out')).map((n: any) => n.entity)).toEqual([{ id: 'm#b', name: 'b', type: 'function' }]);
  });

  it('removes entities with their triples, removes and replaces triples, in the same write', async () => {
    const res = await json(
      await postJson(`${base}/consumer/default/code/write`, {
        removeEntities: ['m#b', 'm#gone'],
        removeTriples: [{ subject: 'm#c', predicate: 'calls', object: 'm#a' }],
        entities: [entity('m#e')],
        triples: [
          { subject: 'm#a', predicate: 'calls', object: 'm#e', weight: 3 },
          { subject: 'm', predicate: 'contains', object: 'm#a', weight: 1 },
        ],
      }),
    );
    expect(res).toEqual({ ok: true, entities: { added: 1, updated: 0, removed: 1 }, triples: { added: 1, updated: 1, removed: 2 } });
    const after = await all('default', 'code');
    expect(after.entities).toEqual(['m', 'm#a', 'm#c', 'm#e']);
    expect(after.triples).toEqual(['m contains m#a 1', 'm#a calls m#e 3']);
    expect(after.stats).toEqual({ entities: 4, triples: 2, types: { module: 1, function: 3 }, predicates: { contains: 1, calls: 1 } });
    // Another tenant's index of the same name is another graph.
    expect((await all('globex', 'code')).entities).toEqual([]);
    expect((await json(await fetch(`${base}/consumer/globex/code/entity/m%23a`))).entity).toBeNull();
  });

  it('keeps managed indexes out of mention linking while others link documents to entities by name', async () => {
    for (const index of ['managed-code', 'notes']) {
      expect((await postJson(`${base}/v1/indexes`, { name: index, mappings: { body: { type: 'text' } } })).status).toBe(200);
      await postJson(`${base}/consumer/default/${index}/write`, { entities: [{ id: 'parser', name: 'tokenize', type: 'function' }] });
      const written = await postJson(`${base}/v1/indexes/${index}/documents`, { documents: [{ id: 'd1', body: 'we call tokenize here' }] });
      expect(written.status).toBe(200);
    }
    const mentioned = async (index: string) => (await json(await fetch(`${base}/v1/indexes/${index}/graph/entities/parser`))).mentionedIn;
    await waitFor(async () => (await mentioned('notes')).length === 1);
    expect(await mentioned('notes')).toEqual(['d1']);
    expect(await mentioned('managed-code')).toEqual([]);
  });

  it('drops an index graph', async () => {
    expect(await json(await fetch(`${base}/consumer/default/code`, { method: 'DELETE' }))).toEqual({ ok: true, dropped: true });
    expect((await all('default', 'code')).stats).toEqual({ entities: 0, triples: 0, types: {}, predicates: {} });
  });
});
