import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { hasChromium, launch, seriousViolations } from '../console/browser.js';
import { bootstrapLine } from '../rbac/helpers.js';

/**
 * The kit's shell and session module in the two cases between "open" and "signed in": an open
 * listener that also serves rbac (the workflow hub: a session is offered, not required) and a
 * listener that enforces auth without rbac on it (the control plane: sign-in is impossible there,
 * and the page says how to fix it).
 */
describe.skipIf(!hasChromium)('ui-kit shell sessions in Chromium', { timeout: 60_000 }, () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    // The session read of a visitor without one answers 401, as it should.
    page.on('console', (m) => m.type() === 'error' && !/status of 401/.test(m.text()) && problems.push(`console: ${m.text()}`));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  const heading = () => page.locator('h1');
  const header = () => page.locator('header.top');

  describe('an open listener that serves rbac (workflow hub)', () => {
    let t: TestApp;
    let base: string;
    let key: string;
    beforeAll(async () => {
      t = await createTestApp({ listeners: [{ name: 'hub', port: 0, plugins: ['workflow', 'rbac'] }], plugins: { workflow: {}, rbac: {} } });
      base = t.url('hub');
      key = bootstrapLine(t.logs)!.apiKey as string;
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('opens without sign-in, offers a session, and the rbac panel asks for one', async () => {
      await page.goto(base + '/');
      await expect.poll(() => page.url()).toBe(`${base}/workflows`);
      await heading().filter({ hasText: 'Workflows' }).waitFor();
      expect(await header().getByRole('button', { name: 'Sign out' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Access', exact: true }).click();
      await heading().filter({ hasText: 'Access' }).waitFor();
      await page.getByRole('status').filter({ hasText: 'need a signed-in key' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('main').getByRole('link', { name: 'sign in' }).click();
      await expect.poll(() => page.url()).toBe(`${base}/sign-in?next=%2Faccess`);
      await heading().filter({ hasText: 'Sign in to the workflow hub' }).waitFor();
    });

    it('signs in back to the panel, and signing out leaves the listener open', async () => {
      await page.getByLabel('API key').fill(key);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.url()).toBe(`${base}/access`);
      await page.getByRole('table', { name: 'Permission matrix' }).waitFor();
      expect(await header().getByRole('link', { name: 'Sign in' }).count()).toBe(0);
      await header().getByRole('button', { name: 'Sign out' }).click();
      await expect.poll(() => page.url()).toBe(`${base}/workflows`);
      await heading().filter({ hasText: 'Workflows' }).waitFor();
      await header().getByRole('link', { name: 'Sign in' }).waitFor();
      expect((await fetch(`${base}/hub/session`)).status).toBe(401);
    });
  });

  describe('a listener that enforces auth without rbac on it (control plane)', () => {
    let t: TestApp;
    let base: string;
    beforeAll(async () => {
      t = await createTestApp({
        listeners: [
          { name: 'search', port: 0, plugins: ['search'] },
          { name: 'control', port: 0, plugins: ['console'] },
          { name: 'keys', port: 0, plugins: ['rbac'] },
        ],
        plugins: { search: {}, console: {}, rbac: {} },
        auth: { provider: 'rbac' },
      });
      base = t.url('control');
    });
    afterAll(async () => {
      await t?.stop();
    });

    it('sends the visitor to sign-in, which names the missing plugin', async () => {
      await page.goto(base + '/fleet');
      await expect.poll(() => page.url()).toBe(`${base}/sign-in?next=%2Ffleet`);
      await heading().filter({ hasText: 'Sign in to Tessera' }).waitFor();
      const notice = page.getByRole('status');
      expect(await notice.innerText()).toBe(
        "This listener enforces auth but does not serve sign-in: add the rbac plugin to the control plane's listener in the manifest.",
      );
      expect(await page.getByLabel('API key').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    });
  });
});
