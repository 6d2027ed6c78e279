import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, json, tempDir, type TestApp } from '../../helpers/app.js';
import { loadWordnet, wordnetAvailable, type WordnetSynset } from '../search/support/wordnet.js';

const manifest = { listeners: [{ name: 'search', port: 0, plugins: ['search', 'graph'] }], plugins: { search: {}, graph: {} } };

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
  return { status: res.status, body: await json(res) };
}

/** Polls until `read` answers what `done` accepts (background linking), for up to 10 s. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The glosses that hold `phrase` as whole words, the way mentions are matched. */
function mentioning(synsets: readonly WordnetSynset[], phrase: string): string[] {
  const pattern = new RegExp(`(^|[^a-z])${phrase}([^a-z]|$)`, 'i');
  return synsets.filter((s) => pattern.test(s.text) || pattern.test(s.title)).map((s) => s.id);
}

describe.skipIf(!wordnetAvailable())('entities linked to the documents that mention them (WordNet glosses)', () => {
  let t: TestApp;
  let dataDir: string;
  let synsets: WordnetSynset[];
  const graph = () => `${t.url()}/v1/indexes/wordnet/graph`;

  beforeAll(async () => {
    synsets = loadWordnet({ stride: 40 });
    dataDir = tempDir();
    t = await createTestApp(manifest, { dataDir });
    await call('POST', `${t.url()}/v1/indexes`, { name: 'wordnet', mappings: { title: { type: 'text' }, text: { type: 'text' } } });
    await call(
      'POST',
      `${t.url()}/v1/indexes/wordnet/documents`,
      synsets.map(({ id, title, text }) => ({ id, title, text })),
    );
  });
  afterAll(async () => {
    await t.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('links documents written before the entity, once its names are known, and answers them as relatedDocIds', async () => {
    const expected = [...new Set([...mentioning(synsets, 'genus'), ...mentioning(synsets, 'genera')])].sort();
    expect(expected.length).toBeGreaterThan(20);
    await call('POST', `${graph()}/entities`, { entities: [{ id: 'c:genus', name: 'genus', type: 'concept', aliases: ['genera'] }] });
    const read = await eventually(
      () => call('GET', `${graph()}/entities/c:genus`),
      (r) => r.body.mentionedIn?.length === expected.length,
    );
    expect(read.body.mentionedIn).toEqual(expected);
    const found = await call('POST', `${graph()}/search`, { query: 'Genus', maxHops: 0 });
    expect([...found.body.relatedDocIds].sort()).toEqual(expected);
  });

  it('prefers the longest name: a multi-word entity claims its words', async () => {
    await call('POST', `${graph()}/entities`, { entities: [{ id: 'c:genus-zygnema', name: 'genus Zygnema', type: 'taxon' }] });
    const both = mentioning(synsets, 'genus zygnema');
    expect(both).toHaveLength(1);
    const read = await eventually(
      () => call('GET', `${graph()}/entities/c:genus-zygnema`),
      (r) => r.body.mentionedIn?.length === 1,
    );
    expect(read.body.mentionedIn).toEqual(both);
    // "genus" inside "genus Zygnema" went to the longer name: the document mentions c:genus only
    // if it says "genus" elsewhere too.
    const gloss = synsets.find((s) => s.id === both[0])!;
    const elsewhere = [...`${gloss.title} | ${gloss.text}`.matchAll(/\bgenus\b(?! zygnema)/gi)].length;
    const genus = (await call('GET', `${graph()}/entities/c:genus`)).body.mentionedIn as string[];
    expect(genus.includes(both[0]!)).toBe(elsewhere > 0);
    const only = await call('POST', `${graph()}/search`, { query: 'genus zygnema', maxHops: 0 });
    expect(only.body.entities.map((e: { id: string }) => e.id)).toEqual(['c:genus-zygnema']);
  });

  it('follows writes and deletes of documents', async () => {
    await call('POST', `${t.url()}/v1/indexes/wordnet/documents`, [{ id: 'new-1', title: 'a note', text: 'about one genus of moths' }]);
    expect(
      (
        await eventually(
          () => call('GET', `${graph()}/entities/c:genus`),
          (r) => r.body.mentionedIn.includes('new-1'),
        )
      ).body.mentionedIn,
    ).toContain('new-1');
    await call('POST', `${t.url()}/v1/indexes/wordnet/documents`, [{ id: 'new-1', title: 'a note', text: 'about moths' }]);
    expect(
      (
        await eventually(
          () => call('GET', `${graph()}/entities/c:genus`),
          (r) => !r.body.mentionedIn.includes('new-1'),
        )
      ).body.mentionedIn,
    ).not.toContain('new-1');
    const someId = mentioning(synsets, 'genus')[0]!;
    await fetch(`${t.url()}/v1/indexes/wordnet/documents/${someId}`, { method: 'DELETE' });
    expect(
      (
        await eventually(
          () => call('GET', `${graph()}/entities/c:genus`),
          (r) => !r.body.mentionedIn.includes(someId),
        )
      ).body.mentionedIn,
    ).not.toContain(someId);
  });

  it('keeps mentions across a restart', async () => {
    const before = (await call('GET', `${graph()}/entities/c:genus`)).body;
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    expect((await call('GET', `${graph()}/entities/c:genus`)).body).toEqual(before);
  });
});
