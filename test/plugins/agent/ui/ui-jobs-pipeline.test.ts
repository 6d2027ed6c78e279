import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../helpers/app.js';
import { ForgeServer } from '../forge-server.js';
import { gitRaw, makeRepo, type Fixture } from '../git-fixture.js';
import { startProviderServer, type ModelListServer } from '../provider-server.js';
import { startAgent, type AgentApp } from '../support.js';
import { configureProvider, diffOf, scriptProvider, statesOf, waitForState, type TicketScript } from '../ticket-support.js';
import { hasChromium, launch, seriousViolations, shot, watchProblems } from './browser.js';

const xssTitle = '<img src=x onerror="window.__xss=1">Slugs keep <script>window.__xss=2</script> punctuation';
const slug = "export function slugify(title) {\n  return title.toLowerCase().replace(/ /g, '-');\n}\n";
const fixedSlug = "export function slugify(title) {\n  return title\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-|-$/g, '');\n}\n";

/**
 * The Jobs board and Clarifying questions screens against the REAL ticket pipeline: a `ticket` job
 * on `ctx.jobs`, triaged and patched by the local scripted model server, tested with `node --test`
 * in the sandbox on a real git repository, and proposed as a pull request on the local forge.
 */
describe.skipIf(!hasChromium)('agent console jobs screens against the real ticket pipeline', { timeout: 120_000 }, () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const scripts = new Map<string, TicketScript>();
  const column = (state: string) => page.getByRole('region', { name: new RegExp('^' + state.replace(/_/g, ' ') + ' \\d+$') });
  let jobId = '';

  beforeAll(async () => {
    fx = makeRepo('acme', 'web', {
      'lib/slug.mjs': slug,
      'test/slug.test.mjs':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { slugify } from '../lib/slug.mjs';\n\ntest('drops punctuation', () => {\n  assert.equal(slugify('Hello,  World!'), 'hello-world');\n});\n",
    });
    forge = await new ForgeServer('ghp_ui').start();
    forge.addRepo('acme/web', fx.bare);
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    scripts.set('UI-1', {
      triage: [
        {
          actionable: false,
          summary: 'unclear what slugs should keep',
          role: 'frontend-ui',
          questions: [
            {
              id: 'punctuation',
              question: 'What should happen to punctuation?',
              choices: [
                { id: 'drop', label: 'Drop it' },
                { id: 'keep', label: 'Keep it' },
              ],
              allowFreeText: false,
            },
            { id: 'notes', question: 'Anything else?', choices: [], allowFreeText: true },
          ],
        },
      ],
      patches: [diffOf(fx.work, { 'lib/slug.mjs': fixedSlug })],
    });
    t = await startAgent(
      {
        baseUrl: provider.baseUrl,
        reposRoot: fx.reposRoot,
        forge: { baseUrl: forge.url, token: 'ghp_ui' },
        workspaces: { refreshSeconds: 0 },
      },
      { dataDir: path.join(tempDir(), 'data') },
    );
    await configureProvider(t);
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await forge?.stop();
    await provider?.close();
  });

  it('shows a job paused on clarifying questions on the board, its title holding markup rendered as text', async () => {
    const res = await t.call('POST', '/api/v1/tickets/webhook', {
      ticket_id: 'UI-1',
      repo_name: 'acme/web',
      title: xssTitle,
      description: 'slugify("Hello,  World!") should be hello-world',
    });
    expect(res.status).toBe(202);
    jobId = res.body.jobId;
    await waitForState(t, jobId, ['awaiting_clarification']);
    await page.goto(`${t.base}/`);
    await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
    await column('awaiting_clarification').getByRole('link', { name: xssTitle }).waitFor();
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '20-pipeline-board');
  });

  it('answers the questions in the browser, and the job resumes through patching and testing to a pull request shown on its page', async () => {
    await page.getByRole('link', { name: 'Clarifying questions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clarifying questions' }).waitFor();
    const card = page.getByRole('region', { name: xssTitle });
    await card.getByRole('group', { name: 'What should happen to punctuation?' }).getByRole('radio', { name: 'Drop it' }).check();
    await card.getByRole('group', { name: 'Anything else?' }).getByLabel('Your answer').fill('Trim <b>dashes</b> at the ends');
    await card.getByRole('button', { name: 'Send answers' }).click();
    await page.getByText(/Answers sent for .*punctuation: the job is /).waitFor();

    const done = await waitForState(t, jobId, ['completed', 'failed']);
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'awaiting_clarification', 'queued', 'planning', 'patching', 'testing', 'proposing', 'completed']);
    expect(done.answers).toEqual([
      { questionId: 'punctuation', choiceId: 'drop' },
      { questionId: 'notes', text: 'Trim <b>dashes</b> at the ends' },
    ]);
    // The answers reached the patching model's prompt.
    expect(provider.chats.some((c: any) => JSON.stringify(c).includes('What should happen to punctuation? -> Drop it'))).toBe(true);
    expect(gitRaw(fx.bare, 'show', `${done.commit}:lib/slug.mjs`)).toBe(fixedSlug);

    await page.goto(`${t.base}/jobs/${encodeURIComponent(jobId)}`);
    await page.getByRole('heading', { level: 1, name: xssTitle }).waitFor();
    const pr = page.getByRole('link', { name: `#${done.pullRequest.number}` });
    await pr.waitFor();
    expect(await pr.getAttribute('href')).toBe(done.pullRequest.url);
    expect(done.pullRequest.url).toContain(forge.url);
    await page.locator('.meta-line').getByText('completed', { exact: true }).waitFor();
    await page
      .getByRole('region', { name: 'Diff' })
      .getByRole('table', { name: /lib\/slug\.mjs: old version on the left/ })
      .waitFor();
    expect(await page.getByLabel('Test output', { exact: true }).innerText()).toBe(done.tests.output);
    // The command (an argv array in the API) as one line: for the job's tests and for each attempt's.
    expect(await page.getByText('node --test', { exact: true }).count()).toBe(1 + done.attempts.length);
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '21-pipeline-job');

    await page.getByRole('navigation').getByRole('link', { name: 'Jobs', exact: true }).click();
    await column('completed')
      .getByRole('link', { name: `Pull request #${done.pullRequest.number}` })
      .waitFor();
    expect(problems).toEqual([]);
  });
});
