import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentOptionsSchema } from '../../../plugins/agent/options.js';
import { makeRepo } from './git-fixture.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { startAgent, type AgentApp } from './support.js';

const OPERATOR_KEY = 'sk-operator-in-process-4Hq9';
const OWN_KEY = 'sk-own-key-of-default-Lp3e';

/** The operator's provider key (`apiKeyEnv`) and who may use it (`apiKeyTenants`), in the service itself. */
describe('the operator key option (apiKeyEnv, apiKeyTenants)', () => {
  let provider: ModelListServer;
  const apps: AgentApp[] = [];
  const fx = makeRepo('acme', 'ops', { 'lib/a.mjs': 'export const a = 1;\n' });
  const start = async (options: Record<string, unknown>) => {
    const t = await startAgent({ baseUrl: provider.baseUrl, reposRoot: fx.reposRoot, allowPrivateAddresses: true, cache: { enabled: false }, ...options });
    apps.push(t);
    return t;
  };
  let n = 0;
  const chat = async (t: AgentApp) => {
    const before = provider.requests.length;
    const content = `question ${++n}: ${['what is a monad', 'how do tides work', 'why is the sky blue', 'what is entropy', 'who wrote Hamlet'][n % 5]}`;
    const res = await t.call('POST', '/api/v1/chat/completions', { model: 'tier:4', messages: [{ role: 'user', content }] });
    expect(res.status).toBe(200);
    return provider.requests.slice(before).filter((r) => r.path === '/api/v1/chat/completions')[0]!.authorization;
  };

  beforeAll(async () => {
    provider = await startProviderServer();
    process.env.TESSERA_TEST_IN_PROCESS_KEY = OPERATOR_KEY;
  });
  afterAll(async () => {
    for (const t of apps) await t.stop();
    await provider.close();
    delete process.env.TESSERA_TEST_IN_PROCESS_KEY;
  });

  it('validates the options', () => {
    const parse = (o: Record<string, unknown>) => agentOptionsSchema.safeParse(o);
    expect(parse({}).data?.apiKeyTenants).toEqual(['default']);
    expect(parse({ apiKeyEnv: 'OPENROUTER_API_KEY', apiKeyTenants: ['*'] }).success).toBe(true);
    for (const bad of [
      { apiKeyEnv: 'OPENROUTER-KEY' },
      { apiKeyEnv: '1KEY' },
      { apiKeyTenants: [] },
      { apiKeyTenants: ['*', 'acme'] },
      { apiKeyTenants: ['a', 'a'] },
    ]) {
      const r = parse(bad);
      expect(r.success, JSON.stringify(bad)).toBe(false);
      expect(r.error!.issues[0]!.path[0]).toBe(Object.keys(bad)[0]);
    }
  });

  it("serves a listed tenant without a key of its own, gives way to the tenant's key, and never goes to a tenant's base URL", async () => {
    const t = await start({ apiKeyEnv: 'TESSERA_TEST_IN_PROCESS_KEY' });
    expect((await t.call('GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: false, operatorKey: true });
    expect(await chat(t)).toBe(`Bearer ${OPERATOR_KEY}`);
    // The tenant's own key always wins.
    await t.call('POST', '/api/v1/models/config', { apiKey: OWN_KEY });
    expect((await t.call('GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: true, last4: OWN_KEY.slice(-4) });
    expect(await chat(t)).toBe(`Bearer ${OWN_KEY}`);
    // A base URL the tenant set (here the same server, as the tenant's) gets no operator key.
    await t.call('POST', '/api/v1/models/config', { apiKey: null, baseUrl: provider.baseUrl });
    expect((await t.call('GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: false });
    expect(await chat(t)).toBeUndefined();
    // Back on the manifest's base URL, the operator key serves it again.
    await t.call('POST', '/api/v1/models/config', { baseUrl: null });
    expect(await chat(t)).toBe(`Bearer ${OPERATOR_KEY}`);
  });

  it('leaves a tenant outside apiKeyTenants (or an unset variable) without a provider: provider_not_configured', async () => {
    for (const options of [{ apiKeyEnv: 'TESSERA_TEST_IN_PROCESS_KEY', apiKeyTenants: ['acme'] }, { apiKeyEnv: 'TESSERA_TEST_UNSET_KEY' }]) {
      const t = await start(options);
      expect((await t.call('GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: false });
      const res = await t.call('POST', '/api/v1/agent/remediate', { repo: 'acme/ops', instructions: 'rename a to b' });
      expect([res.status, res.body.error.code]).toEqual([409, 'provider_not_configured']);
    }
    const all = await start({ apiKeyEnv: 'TESSERA_TEST_IN_PROCESS_KEY', apiKeyTenants: ['*'] });
    expect((await all.call('GET', '/api/v1/models/config')).body.config.apiKey).toEqual({ configured: false, operatorKey: true });
  });
});
