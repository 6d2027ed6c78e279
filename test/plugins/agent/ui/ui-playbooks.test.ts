import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type AgentApp } from '../support.js';
import { hasChromium, launch, seriousViolations, shot, watchProblems } from './browser.js';

/** The Operations screen's playbook configuration panel against the real `/api/v1/playbooks/config`. */
describe.skipIf(!hasChromium)('agent console playbook configuration in Chromium', { timeout: 60_000 }, () => {
  let t: AgentApp;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const panel = () => page.getByRole('form', { name: 'Playbook configuration' });

  beforeAll(async () => {
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1' });
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("shows the tenant's listener rules, auto-comment and auto-merge criteria as the service answers them", async () => {
    const { config } = (await t.call('GET', '/api/v1/playbooks/config')).body;
    await page.goto(`${t.base}/operations`);
    await page.getByRole('heading', { level: 2, name: 'Playbook configuration' }).waitFor();
    await page.getByText('The defaults (never saved).').waitFor();
    const f = panel();
    expect(await f.getByLabel('Listen to tracker events').isChecked()).toBe(config.listener.enabled);
    for (const e of ['assigned', 'labeled', 'opened']) {
      expect(await f.getByRole('group', { name: 'Events' }).getByLabel(e, { exact: true }).isChecked()).toBe(config.listener.events.includes(e));
    }
    expect(await f.getByLabel('Protected paths (globs, one a line: never merged automatically)').inputValue()).toBe(config.autoMerge.protectedPaths.join('\n'));
    expect(await f.getByLabel('Most changed lines').inputValue()).toBe(String(config.autoMerge.maxChangedLines));
    expect(await f.getByLabel('Merge pull requests that meet every criterion').isChecked()).toBe(false);
    expect(await f.getByLabel('Merge method').inputValue()).toBe(config.autoMerge.method);
    expect(await f.getByRole('group', { name: 'States that post a comment' }).getByLabel('awaiting clarification').isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '30-playbooks');
  });

  it("places the server's validation errors on their fields and saves nothing", async () => {
    const before = (await t.call('GET', '/api/v1/playbooks/config')).body;
    const f = panel();
    await f.getByLabel('Repositories (owner/repo patterns, one a line; none: any)').fill('acme/*\nnot a repository');
    await f.getByLabel('Most changed lines').fill('0');
    await f.getByRole('button', { name: 'Save playbooks' }).click();
    await page.getByRole('alert').filter({ hasText: 'validation_failed' }).waitFor();
    const repoField = f.getByLabel('Repositories (owner/repo patterns, one a line; none: any)');
    const describedBy = async (field: typeof repoField) => {
      const ids = (await field.getAttribute('aria-describedby')) ?? '';
      return (
        await Promise.all(
          ids
            .split(' ')
            .filter(Boolean)
            .map((id) => page.locator(`#${id}`).innerText()),
        )
      ).join(' ');
    };
    expect(await describedBy(repoField)).toContain('line 2: expected owner/repo');
    expect(await describedBy(f.getByLabel('Most changed lines'))).toMatch(/>=1|at least 1|too small/i);
    expect((await t.call('GET', '/api/v1/playbooks/config')).body).toEqual(before);
    expect(problems.every((p) => /status of 400/.test(p))).toBe(true);
    problems.length = 0;
  });

  it('saves listener rules, auto-comment and auto-merge criteria, and the service holds them', async () => {
    const f = panel();
    await f.getByLabel('Repositories (owner/repo patterns, one a line; none: any)').fill('acme/*\nwidgets/api');
    await f.getByLabel('Labels (one a line; none: any)').fill('agent\n<b>fix-me</b>');
    await f.getByRole('group', { name: 'Events' }).getByLabel('opened', { exact: true }).check();
    await f.getByRole('group', { name: 'States that post a comment' }).getByLabel('triaging').uncheck();
    await f.getByLabel('Merge pull requests that meet every criterion').check();
    await f.getByLabel('Most changed lines').fill('120');
    await f.getByLabel('Merge method').selectOption('rebase');
    await f.getByLabel('Required labels (one a line)').fill('safe-to-merge');
    await f.getByRole('button', { name: 'Save playbooks' }).click();
    await page.getByText('Playbook configuration saved.').waitFor();
    const { config, defaults } = (await t.call('GET', '/api/v1/playbooks/config')).body;
    expect(defaults).toBe(false);
    expect(config.listener).toEqual({
      enabled: true,
      events: ['assigned', 'labeled', 'opened'],
      labels: ['agent', '<b>fix-me</b>'],
      assignees: [],
      repositories: ['acme/*', 'widgets/api'],
    });
    expect(config.autoComment.states).toEqual(['awaiting_clarification', 'testing', 'completed', 'failed', 'cancelled']);
    expect(config.autoMerge).toMatchObject({ enabled: true, maxChangedLines: 120, method: 'rebase', requiredLabels: ['safe-to-merge'] });
    // A reload shows what was saved, the markup in a label as text.
    await page.reload();
    await page.getByText(/^Saved /).waitFor();
    expect(await panel().getByLabel('Labels (one a line; none: any)').inputValue()).toBe('agent\n<b>fix-me</b>');
    expect(await panel().getByLabel('Most changed lines').inputValue()).toBe('120');
    expect(await page.locator('main b').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
