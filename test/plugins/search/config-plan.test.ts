import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } };

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return { status: res.status, body: await json(res) };
}

describe('configuration plan and apply', () => {
  let t: TestApp;
  const url = (p: string) => `${t.url()}${p}`;
  const plan = (spec: unknown) => call('POST', url('/v1/config/plan'), spec);
  const apply = (body: unknown) => call('POST', url('/v1/config/apply'), body);

  beforeEach(async () => {
    t = await createTestApp(manifest);
    await postJson(url('/v1/indexes'), {
      name: 'books',
      mappings: { title: { type: 'text' }, year: { type: 'number' }, isbn: { type: 'keyword' }, blurb: { type: 'text' } },
      settings: { defaultOperator: 'OR' },
    });
    await postJson(url('/v1/indexes/books/documents'), [
      { id: 'b1', title: 'Dune', year: 1965, isbn: '0441013597', blurb: 'desert planet' },
      { id: 'b2', title: 'Hyperion', year: 1989, isbn: '0553283685', blurb: 'pilgrims' },
    ]);
    await postJson(url('/v1/indexes'), { name: 'legacy', mappings: { text: { type: 'text' } } });
  });
  afterEach(() => t.stop());

  const spec = {
    version: '2026-11-26',
    indexes: [
      {
        name: 'books',
        mappings: { title: { type: 'text', analyzer: 'english' }, year: { type: 'keyword' }, isbn: { type: 'keyword' }, pages: { type: 'number' } },
        settings: { defaultOperator: 'AND', enableKnowledgeGraph: true },
      },
      { name: 'authors', mappings: { name: { type: 'text' } } },
    ],
  };

  it('lists every difference in a deterministic order, with a hash of the plan and the state', async () => {
    const { status, body } = await plan(spec);
    expect(status).toBe(200);
    expect(body.plan).toEqual(
      [
        { action: 'create_index', target: 'authors', details: { mappings: { name: { type: 'text', analyzer: 'standard', index: true } }, settings: {} } },
        { action: 'update_setting', target: 'books.settings.defaultOperator', details: { from: 'OR', to: 'AND' } },
        {
          action: 'add_field',
          target: 'books.mappings.pages',
          details: { mapping: { type: 'number', index: true }, requiresReindex: true, destructive: false },
        },
        {
          action: 'remove_field',
          target: 'books.mappings.blurb',
          details: { mapping: { type: 'text', analyzer: 'standard', index: true }, requiresReindex: true, destructive: true },
        },
        {
          action: 'change_field',
          target: 'books.mappings.title',
          details: {
            from: { type: 'text', analyzer: 'standard', index: true },
            to: { type: 'text', analyzer: 'english', index: true },
            requiresReindex: true,
            destructive: false,
          },
        },
        {
          action: 'change_field',
          target: 'books.mappings.year',
          details: { from: { type: 'number', index: true }, to: { type: 'keyword', index: true }, requiresReindex: true, destructive: true },
        },
        { action: 'delete_index', target: 'legacy', details: { docCount: 0, destructive: true } },
      ].sort((a, b) => order(a) - order(b)),
    );
    expect(body.hash).toMatch(/^[0-9a-f]{64}$/);
    // Same spec, same state: same plan and hash. A changed state: another hash.
    expect((await plan(spec)).body).toEqual(body);
    await call('PATCH', url('/v1/indexes/legacy'), { settings: { defaultOperator: 'AND' } });
    expect((await plan(spec)).body.hash).not.toBe(body.hash);
  });

  it('changes nothing: the store file and every index are identical before and after', async () => {
    await new Promise((r) => setTimeout(r, 300));
    const file = path.join(t.dataDir, 'tessera.mdb');
    const fingerprint = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = { file: fingerprint(), indexes: (await call('GET', url('/v1/indexes'))).body };
    for (let i = 0; i < 3; i++) expect((await plan(spec)).status).toBe(200);
    expect({ file: fingerprint(), indexes: (await call('GET', url('/v1/indexes'))).body }).toEqual(before);
  });

  it('refuses an invalid spec with the JSON path of every problem', async () => {
    const { status, body } = await plan({
      indexes: [
        { name: 'Bad Name', mappings: { a: { type: 'txt' } } },
        { name: 'ok', mappings: { b: { type: 'keyword', analyzer: 'english' } }, settings: { defaultOperator: 'XOR', nope: 1 } },
        { name: 'ok' },
      ],
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual(
      [
        'body.version',
        'body.indexes[0].name',
        'body.indexes[0].mappings.a.type',
        'body.indexes[1].mappings.b.analyzer',
        'body.indexes[1].settings.defaultOperator',
        'body.indexes[1].settings.nope',
        'body.indexes[2].name',
      ].sort(),
    );
  });

  it('applies a plan whose state still hashes the same; destructive steps need allowDestructive', async () => {
    const { body: planned } = await plan(spec);
    const refused = await apply({ plan: planned.plan, hash: planned.hash });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('destructive_change');
    expect(refused.body.error.details.targets).toEqual(['books.mappings.year', 'books.mappings.blurb', 'legacy']);
    expect((await call('GET', url('/v1/indexes/legacy'))).status).toBe(200);

    const done = await apply({ plan: planned.plan, hash: planned.hash, allowDestructive: true });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ ok: true, applied: planned.plan, documentsLost: 0 });
    const books = (await call('GET', url('/v1/indexes/books'))).body.index;
    expect(books.mappings).toEqual({
      title: { type: 'text', analyzer: 'english', index: true },
      year: { type: 'keyword', index: true },
      isbn: { type: 'keyword', index: true },
      pages: { type: 'number', index: true },
    });
    expect(books.settings.defaultOperator).toBe('AND');
    expect(books.docCount).toBe(2);
    // The year is a keyword now; the removed field stays in the source.
    const found = await call('POST', url('/v1/indexes/books/search'), { q: 'dune', filter: { eq: { year: '1965' } } });
    expect(found.body.hits.map((h: { id: string; source: { blurb: string } }) => [h.id, h.source.blurb])).toEqual([['b1', 'desert planet']]);
    expect((await call('GET', url('/v1/indexes/legacy'))).status).toBe(404);
    expect((await call('GET', url('/v1/indexes/authors'))).status).toBe(200);
    // Applied: planning again finds nothing to do.
    expect((await plan(spec)).body.plan).toEqual([]);
  });

  it('refuses a plan the indexes have moved away from with 409 plan_stale, doing nothing', async () => {
    const { body: planned } = await plan({
      version: '1',
      indexes: [{ name: 'books', mappings: { pages: { type: 'number' } }, settings: {} }, { name: 'legacy' }],
    });
    await call('PATCH', url('/v1/indexes/books'), { settings: { defaultOperator: 'AND' } });
    const stale = await apply({ plan: planned.plan, hash: planned.hash, allowDestructive: true });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toMatchObject({ code: 'plan_stale', details: { hash: planned.hash } });
    expect(Object.keys((await call('GET', url('/v1/indexes/books'))).body.index.mappings)).not.toContain('pages');
    // An edited plan does not carry its hash either.
    const fresh = (await plan({ version: '1', indexes: [{ name: 'books', mappings: { pages: { type: 'number' } } }, { name: 'legacy' }] })).body;
    const edited = fresh.plan.map((s: { action: string; details: object }) =>
      s.action === 'remove_field' ? { ...s, details: { ...s.details, destructive: false } } : s,
    );
    expect((await apply({ plan: edited, hash: fresh.hash })).body.error.code).toBe('plan_stale');
  });
});

const rank = ['create_index', 'update_setting', 'add_field', 'change_field', 'remove_field', 'delete_index'];
function order(step: { action: string; target: string }): number {
  return step.target.split('.')[0]!.charCodeAt(0) * 100 + rank.indexOf(step.action);
}
