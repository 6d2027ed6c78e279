import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzedPart, maxAnalyzedChars } from '../../../plugins/search/analysis/text-limits.js';
import { createTestApp, json, postJson, type TestApp } from '../../helpers/app.js';

describe('the analysed part of a text value', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'search', port: 0, plugins: ['search'] }], plugins: { search: {} } });
    base = `${t.url()}/v1/indexes`;
    await postJson(base, { name: 'long', mappings: { body: { type: 'text' } } });
  });
  afterAll(() => t.stop());

  it('never cuts a surrogate pair', () => {
    const text = 'a'.repeat(maxAnalyzedChars - 1) + '😀' + 'b';
    expect(analyzedPart(text).length).toBe(maxAnalyzedChars - 1);
    expect(analyzedPart('short')).toBe('short');
  });

  it('indexes and highlights the first million characters, stores and returns the whole value', async () => {
    const body = 'early words here ' + 'filler '.repeat(300_000) + 'lateword';
    expect(body.length).toBeGreaterThan(2 * maxAnalyzedChars);
    expect((await json(await postJson(`${base}/long/documents`, [{ id: 'big', body }]))).indexed).toBe(1);
    const early = await json(await postJson(`${base}/long/search`, { q: 'early', select: ['id'] }));
    expect(early.total).toBe(1);
    expect(early.hits[0].highlight.body[0]).toContain('<mark>early</mark>');
    expect((await json(await postJson(`${base}/long/search`, { q: 'lateword' }))).total).toBe(0);
    const stored = await json(await fetch(`${base}/long/documents/big`));
    expect(stored.document.body).toHaveLength(body.length);
  });
});
