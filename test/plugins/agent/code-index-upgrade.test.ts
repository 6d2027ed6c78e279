import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../../runtime/store.js';
import { tempDir } from '../../helpers/app.js';
import { makeRepo, pythonProject } from './git-fixture.js';
import { startAgent, type AgentApp } from './support.js';

// The code graph lived in the agent's own store (format 1: `code-files`, `code-heads`) before it
// moved to the search and graph plugins.
describe('a data directory from before the code index', () => {
  const dataDir = path.join(tempDir(), 'data');
  const fx = makeRepo('acme', 'widget', pythonProject);
  const options = { baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } };
  let t: AgentApp | undefined;
  afterAll(() => t?.stop());

  it('starts, drops the old parses and builds the code index on first use', async () => {
    t = await startAgent(options, { dataDir });
    await t.stop();
    t = undefined;
    const store = Store.open(dataDir);
    const old = store.namespace('agent');
    await old.db('code-files').put(['default', 'acme/widget', 'calc/ops.py'], { blob: 'f00d', symbols: { file: 'calc/ops.py', declarations: [] } });
    await old.db('code-heads').put(['default', 'acme/widget'], { commit: 'f00d', at: '2026-01-01T00:00:00.000Z' });
    await store.root.openDB<unknown, string>({ name: '__tessera_meta' }).put('plugin:agent:formatVersion', 1);
    await store.close();

    t = await startAgent(options, { dataDir, listenerPlugins: ['agent', 'search'] });
    const built = await t.call('GET', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(built.status).toBe(200);
    expect(built.body.stats).toMatchObject({ files: 5, parsedFiles: 5, reusedFiles: 0, declarations: 20 });
    expect((await t.call('GET', '/v1/indexes/code--acme--widget')).body.index.docCount).toBe(20);
    await t.stop();
    t = undefined;
    const after = Store.open(dataDir);
    expect([...after.namespace('agent').db('code-files').getKeys({})]).toEqual([]);
    expect([...after.namespace('agent').db('code-heads').getKeys({})]).toEqual([]);
    expect(after.namespace('agent').formatVersion()).toBe(2);
    await after.close();
  });
});
