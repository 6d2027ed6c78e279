import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type AgentApp } from '../support.js';

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const csp =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describe('agent console mounted at / beside the /api/v1 routes', () => {
  let t: AgentApp;
  const get = (path: string, accept: string) => fetch(`${t.base}${path}`, { headers: { accept } });

  beforeAll(async () => {
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1' });
  });
  afterAll(() => t.stop());

  it('serves the page at / and at client paths, under the strict CSP', async () => {
    for (const path of ['/', '/jobs', '/jobs/job_123', '/operations', '/sign-in']) {
      const res = await get(path, browserAccept);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toBe(csp);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(await res.text()).toContain('<title>Tessera agent console</title>');
    }
    for (const path of ['/app.js', '/screens/registry.js', '/lib/diff-view.js', '/lib/sign-in-form.js', '/lib/components.js', '/vendor/standalone.module.js']) {
      const res = await get(path, '*/*');
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 200, expect.stringMatching(/javascript/)]);
      expect(res.headers.get('content-security-policy')).toBe(csp);
    }
  });

  it('does not shadow an API route, even for a browser navigation that accepts HTML', async () => {
    for (const accept of [browserAccept, 'application/json', '*/*']) {
      const catalog = await get('/api/v1/models/catalog', accept);
      expect(catalog.status).toBe(200);
      expect(catalog.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await catalog.json()) as { tiers: unknown[] }).tiers).toHaveLength(10);
      const dlq = await get('/api/v1/telemetry/dlq', accept);
      expect(await dlq.json()).toEqual({ ok: true, records: [] });
    }
    const metrics = await get('/metrics/prometheus', browserAccept);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await metrics.text()).toContain('agent_dlq_records');
    // An unknown API path asked for JSON (as the console's client asks) is the runtime's 404, not the page.
    const missing = await get('/api/v1/no-such-route', 'application/json');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { ok: boolean }).ok).toBe(false);
    // A missing script is a 404, never the page.
    expect((await get('/screens/no-such-screen.js', '*/*')).status).toBe(404);
  });

  it('tells the page before sign-in that auth is off here', async () => {
    const { status, body } = await t.call('GET', '/api/v1/console');
    expect(status).toBe(200);
    expect(body).toEqual({ ok: true, name: expect.any(String), version: '0.1.0', auth: false, signIn: null, listener: 'agent' });
  });
});
