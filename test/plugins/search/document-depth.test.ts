import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exceedsDepth, maxDocumentDepth } from '../../../plugins/search/index/document-validation.js';
import { createTestApp, json, postJson, tempDir } from '../../helpers/app.js';

const deep = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('deeply nested documents', () => {
  it('measures depth without recursion', () => {
    expect(exceedsDepth(JSON.parse(deep(64)), maxDocumentDepth)).toBe(false);
    expect(exceedsDepth(JSON.parse(deep(65)), maxDocumentDepth)).toBe(true);
    expect(exceedsDepth(JSON.parse(deep(200_000)), maxDocumentDepth)).toBe(true);
    expect(exceedsDepth([[[[1]]]], 3)).toBe(true);
  });

  it('fails a too-deep document alone, keeps the rest of the batch stored and indexed together, across a restart', async () => {
    const dataDir = tempDir();
    const manifest = {
      listeners: [
        { name: 'search', port: 0, plugins: ['search'] },
        { name: 'bulk', port: 0, plugins: ['bulk'] },
      ],
      plugins: { search: {}, bulk: {} },
    };
    let t = await createTestApp(manifest, { dataDir });
    try {
      const base = `${t.url('search')}/v1/indexes`;
      await postJson(base, { name: 'nest', mappings: { title: { type: 'text' } } });
      const body = `[{"id":"good","title":"kept"},{"id":"deep","title":"kept","x":${deep(6000)}}]`;
      const res = await fetch(`${base}/nest/documents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({ indexed: 1, ids: ['good'], errors: [{ position: 1, id: 'deep', code: 'document_too_deep' }] });

      const lines =
        [JSON.stringify({ id: 'b1', title: 'kept' }), `{"id":"b2","title":"kept","x":${deep(6000)}}`, JSON.stringify({ id: 'b3', title: 'kept' })].join('\n') +
        '\n';
      const bulk = await json(
        await fetch(`${t.url('bulk')}/v1/indexes/nest/bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines }),
      );
      expect(bulk).toMatchObject({ indexed: 2, failed: 1, errors: [{ line: 2, code: 'document_too_deep' }] });

      await t.app.stop();
      t = await createTestApp(manifest, { dataDir });
      const again = `${t.url('search')}/v1/indexes`;
      const found = await json(await postJson(`${again}/nest/search`, { q: 'kept', size: 10, select: ['id'] }));
      expect(found.hits.map((h: { id: string }) => h.id).sort()).toEqual(['b1', 'b3', 'good']);
      expect(found.total).toBe(3);
      for (const id of ['deep', 'b2']) expect((await fetch(`${again}/nest/documents/${id}`)).status).toBe(404);
      expect((await json(await fetch(`${again}/nest`))).index.docCount).toBe(3);
    } finally {
      await t.app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
