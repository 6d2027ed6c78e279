import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, repoRoot, tempDir, type TestApp } from '../../helpers/app.js';
import { hasChromium, launch, seriousViolations } from '../console/browser.js';
import { ping } from './hub-ui-fixtures.js';

/** The hub listener as manifests/default.json declares it: the workflow plugin alone, no auth. */
describe('hub UI on an open listener (the default manifest)', { timeout: 60_000 }, () => {
  let t: TestApp;
  let base: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    t = await createTestApp({ listeners: [{ name: 'hub', port: 0, plugins: ['workflow'] }], plugins: { workflow: {} } });
    base = t.url('hub');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('says before sign-in that auth is off and there is no rbac to sign in with', async () => {
    const res = await fetch(`${base}/hub/ui`);
    expect(await res.json()).toEqual({
      ok: true,
      name: 'test',
      version: '1.0.0',
      auth: false,
      signIn: null,
      rbac: false,
      listener: 'hub',
      protectInvoke: false,
    });
  });

  it('serves the page at / and at client paths under the strict CSP, and the kit beside it', async () => {
    for (const p of ['/', '/workflows', '/traces/ex_1']) {
      const res = await fetch(base + p, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('<script type="module" src="/app.js"></script>');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    for (const p of [
      '/app.js',
      '/hub.css',
      '/lib/shell.js',
      '/lib/session.js',
      '/lib/sign-in-form.js',
      '/lib/rbac-panel.js',
      '/lib/rbac-forms.js',
      '/lib/charts.js',
      '/lib/tar.js',
      '/vendor/standalone.module.js',
    ])
      expect((await fetch(base + p)).status).toBe(200);
  });

  it("lists each workflow's last run in /hub/apis", async () => {
    expect((await fetch(`${base}/hub/workflows`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ping) })).status).toBe(
      201,
    );
    let apis = ((await (await fetch(`${base}/hub/apis`)).json()) as any).apis;
    expect(apis[0].lastExecution).toBeNull();
    const call = await fetch(`${base}/ping`);
    expect(call.status).toBe(200);
    const id = call.headers.get('x-execution-id');
    apis = ((await (await fetch(`${base}/hub/apis`)).json()) as any).apis;
    expect(apis[0].lastExecution).toEqual({ id, status: 'completed', startedAt: expect.any(String), durationMs: expect.any(Number) });
  });

  it.skipIf(!hasChromium)('opens every screen without sign-in; Access is absent without rbac', async () => {
    browser = await launch();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(base + '/');
    await expect.poll(() => page.url()).toBe(`${base}/workflows`);
    await page.getByRole('row').filter({ hasText: 'GET /ping' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Screens' }).getByRole('link').allInnerTexts()).toEqual([
      'Workflows',
      'Traces',
      'Tests',
      'Deploy',
      'Metrics',
    ]);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Sign in' }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(repoRoot, 'test-artifacts', 'hub', '10-open-listener.png'), fullPage: true });
    // A new workflow from the template: created, drawn and served at once.
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.locator('h1').filter({ hasText: 'New workflow' }).waitFor();
    const editor = page.getByLabel('Workflow JSON');
    const spec = JSON.parse(await editor.inputValue());
    spec.name = 'hello';
    spec.route.path = '/hello';
    await editor.fill(JSON.stringify(spec, null, 2));
    await page.getByRole('img', { name: 'Drawing of the workflow hello: 1 step' }).waitFor();
    await page.getByText('valid', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.url()).toBe(`${base}/workflows/hello`);
    await page.getByText('Saved version 1: POST /hello is served now.').waitFor();
    const answer = await fetch(`${base}/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a": 1}' });
    expect(await answer.json()).toEqual({ received: { a: 1 } });
    await page.goto(base + '/access');
    await page.locator('h1').filter({ hasText: 'Not found' }).waitFor();
    expect(problems).toEqual([]);
  });
});

describe('last runs after a restart', () => {
  it("reads each workflow's newest trace from storage", async () => {
    const dataDir = tempDir();
    const manifest = { listeners: [{ name: 'hub', port: 0, plugins: ['workflow'] }], plugins: { workflow: {} } };
    let t = await createTestApp(manifest, { dataDir });
    let base = t.url('hub');
    await fetch(`${base}/hub/workflows`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ping) });
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await fetch(`${base}/ping`)).headers.get('x-execution-id')!);
    await t.stop();
    t = await createTestApp(manifest, { dataDir });
    try {
      base = t.url('hub');
      const apis = ((await (await fetch(`${base}/hub/apis`)).json()) as any).apis;
      expect(apis.map((a: any) => [a.id, a.lastExecution?.id, a.lastExecution?.status])).toEqual([['ping', ids[1], 'completed']]);
    } finally {
      await t.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('hub UI switched off', () => {
  it('serves no page with ui: false; /hub/* stays', async () => {
    const t = await createTestApp({ listeners: [{ name: 'hub', port: 0, plugins: ['workflow'] }], plugins: { workflow: { options: { ui: false } } } });
    try {
      const base = t.url('hub');
      expect((await fetch(base + '/', { headers: { accept: 'text/html' } })).status).toBe(404);
      expect((await fetch(base + '/hub/ui')).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
