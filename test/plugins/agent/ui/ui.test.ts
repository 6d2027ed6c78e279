import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapLine } from '../../rbac/helpers.js';
import { ForgeServer } from '../forge-server.js';
import { git, gitRaw, makeRepo, pythonProject, type Fixture } from '../git-fixture.js';
import { perToken, startProviderServer, type ModelListServer } from '../provider-server.js';
import { startAgent, type AgentApp } from '../support.js';
import { hasChromium, launch, seriousViolations, shot, watchProblems } from './browser.js';

const xssLine = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

/**
 * The agent console against the real agent plugin (rbac sign-in on its listener, auth on), a local
 * OpenAI-compatible provider and a local forge over a git fixture.
 */
describe.skipIf(!hasChromium)('agent console in Chromium', { timeout: 60_000 }, () => {
  let t: AgentApp;
  let provider: ModelListServer;
  let forge: ForgeServer;
  let fx: Fixture;
  let key: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const api = async (method: string, p: string, body?: unknown) => t.call(method, p, body, { 'x-api-key': key });
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

  beforeAll(async () => {
    provider = await startProviderServer([]);
    fx = makeRepo('acme', 'widget', pythonProject);
    forge = await new ForgeServer().start();
    forge.addRepo('acme/widget', fx.bare);
    t = await startAgent(
      {
        baseUrl: provider.baseUrl,
        callTimeoutMs: 2000,
        sync: { attempts: 2, backoffMs: 10 },
        // Three failures in a row open a circuit: the two attempts of the failed sync leave its circuit closed for the replay.
        breaker: { consecutiveFailures: 3, cooldownMs: 600_000 },
        reposRoot: fx.reposRoot,
        forge: { baseUrl: forge.url },
        workspaces: { refreshSeconds: 0 },
      },
      { listenerPlugins: ['rbac', 'agent'], plugins: { rbac: {} }, manifest: { auth: { provider: 'rbac' } } },
    );
    key = bootstrapLine(t.logs)!.apiKey as string;
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await provider?.close();
    await forge?.stop();
  });

  it('sends a signed-out user to sign-in and signs in with a key through the HttpOnly session cookie', async () => {
    const scripts = new Map<string, number>();
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'script') scripts.set(r.url(), gzipSync(await r.body()).length);
    });
    await page.goto(`${t.base}/models`);
    await expect.poll(() => page.url()).toBe(`${t.base}/sign-in?next=%2Fmodels`);
    await heading('Sign in to the agent console');
    page.removeAllListeners('response');
    // The first screen's JavaScript, gzipped, within the control plane's budget, all from this origin.
    expect([...scripts.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100 * 1024);
    for (const url of scripts.keys()) expect(url.startsWith(t.base)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '01-sign-in');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${t.base}/models`);
    await heading('Models');
    // Only the session check before sign-in answered 401.
    expect(problems).toEqual([expect.stringMatching(/^console: Failed to load resource: the server responded with a status of 401/)]);
    problems.length = 0;
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'tessera_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('shows the ten tiers with their models, prices and latency', async () => {
    for (let tier = 1; tier <= 10; tier++) await page.getByRole('heading', { level: 2, name: new RegExp(`^Tier ${tier}: `) }).waitFor();
    const tier3 = page.getByRole('table', { name: 'Models of tier 3' });
    await tier3.getByRole('cell', { name: 'Hide deepseek/deepseek-chat' }).waitFor();
    const row = tier3.getByRole('row').filter({ hasText: 'deepseek/deepseek-chat' });
    // Seed models carry their tier's reference price (completion four times it) and latency.
    expect(await row.getByRole('cell').allInnerTexts()).toEqual([
      'deepseek/deepseek-chat\nDeepSeek V3',
      'deepseek',
      '$0.1500',
      '$0.6000',
      '110 ms',
      expect.any(String),
      'seed',
      'Hide',
    ]);
    await page.getByText('Reference price $45.00 per 1M prompt tokens · about 850 ms').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '02-models');
  });

  it('adds a custom model to a tier and removes it', async () => {
    await page.getByLabel('Model id').fill('bad id');
    await page.getByText('Letters, digits and ._:/@+- only').waitFor();
    await page.getByLabel('Model id').fill('acme/coder-7b');
    await page.getByLabel('Display name').fill('Acme Coder 7B');
    await page.getByLabel('Tier', { exact: true }).selectOption('5');
    await page.getByLabel('Prompt price (USD per 1M tokens)').fill('1.2');
    await page.getByLabel('Completion price (USD per 1M tokens)').fill('4.8');
    await page.getByRole('button', { name: 'Add model' }).click();
    await page.getByText('Added acme/coder-7b to tier 5.').waitFor();
    const row = page.getByRole('table', { name: 'Models of tier 5' }).getByRole('row').filter({ hasText: 'acme/coder-7b' });
    await row.waitFor();
    expect(await row.getByRole('cell').nth(2).innerText()).toBe('$1.20');
    expect((await api('GET', '/api/v1/models/catalog?q=acme')).body.models).toMatchObject([{ id: 'acme/coder-7b', tier: 5, custom: true, source: 'custom' }]);
    await page.getByRole('button', { name: 'Remove acme/coder-7b' }).click();
    await page.getByRole('dialog', { name: 'Remove acme/coder-7b' }).getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByText('acme/coder-7b removed (tier 5); 0 cache entries purged.').waitFor();
    await row.waitFor({ state: 'detached' });
    expect((await api('GET', '/api/v1/models/catalog?q=acme')).body.models).toEqual([]);
  });

  it('keeps the provider key write-only: set, shown by its last four characters, never echoed', async () => {
    const secret = 'sk-or-v1-console-secret-9f3a';
    await page.getByLabel('API key', { exact: true }).fill(secret);
    await page.getByLabel('Sync interval').selectOption('daily');
    await page.getByRole('button', { name: 'Save provider settings' }).click();
    await page.getByText('Provider settings saved.').waitFor();
    await page.getByText('set, ending in 9f3a').waitFor();
    expect(await page.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(secret);
    const config = (await api('GET', '/api/v1/models/config')).body.config;
    expect(config).toMatchObject({ apiKey: { configured: true, last4: '9f3a' }, syncInterval: 'daily', baseUrlSource: 'manifest' });
    await page.getByText(/Next scheduled sync: (?!–)/).waitFor();
  });

  it('syncs now and shows what changed, and shows a failed sync with its error', async () => {
    provider.models = [
      { id: 'acme/new-mid', name: 'Acme Mid', context_length: 32000, pricing: { prompt: perToken(2.4), completion: perToken(9) } },
      { id: 'acme/router', pricing: { prompt: '-1', completion: '-1' } },
    ];
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByText(/1 added, 0 updated, \d+ removed, \d+ unchanged, 1 skipped/).waitFor();
    await page.getByRole('status').getByText('acme/new-mid').waitFor();
    await page.getByRole('table', { name: 'Models of tier 6' }).getByRole('cell', { name: 'acme/new-mid Acme Mid' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '03-models-synced');
    provider.failNext = [500, 502];
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.getByRole('alert').filter({ hasText: 'sync_failed' }).waitFor();
    expect(problems).toEqual([expect.stringMatching(/status of 502/)]);
    problems.length = 0;
  });

  it('lists the failed sync in the dead-letter queue with its stack trace and replays it from the console', async () => {
    await page.getByRole('link', { name: 'Operations' }).click();
    await heading('Operations');
    const dlq = (await api('GET', '/api/v1/telemetry/dlq')).body.records;
    expect(dlq).toHaveLength(1);
    const record = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(dlq[0].id) }) });
    await record.getByText('sync_failed').first().waitFor();
    await record.getByText('Stack trace and attempts').click();
    const stack = record.getByLabel(`Stack trace of ${dlq[0].id}`);
    expect(await stack.innerText()).toContain('    at ');
    await record.getByText(/2 attempt\(s\)/).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '04-dead-letters');
    // The provider is healthy again: the replay completes, and the record says so live.
    await record.getByRole('button', { name: `Replay ${dlq[0].id}` }).click();
    await record.getByText(/Replay queued as job job_/).waitFor();
    await record.getByText('replay completed').waitFor({ timeout: 15_000 });
    const after = (await api('GET', '/api/v1/telemetry/dlq')).body.records[0];
    expect(after).toMatchObject({ id: dlq[0].id, replayState: 'completed', replays: [{ jobId: expect.stringMatching(/^job_/) }] });
  });

  it('shows a circuit opening live, from the telemetry feed', async () => {
    await page.getByText('Live: following the telemetry feed.').waitFor();
    const model = 'deepseek/deepseek-chat';
    provider.scripts.set(model, [{ fail: 500 }, { fail: 500 }, { fail: 500 }]);
    for (let i = 0; i < 3; i++) {
      const answer = await api('POST', '/api/v1/chat/completions', { model, messages: [{ role: 'user', content: `ping ${i}` }], cache: false });
      expect(answer.status).toBe(200);
    }
    const circuits = page.getByRole('table', { name: 'Circuits of this tenant' });
    const row = circuits.getByRole('row').filter({ hasText: `model:${model}` });
    await row.getByText('open', { exact: true }).waitFor();
    expect(await row.getByRole('cell').nth(2).innerText()).toBe('3');
    await page
      .getByRole('listitem')
      .filter({ hasText: `model:${model}: closed → open` })
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '05-circuits');
  });

  it('clears the cache and saves the token budget and engagement mode', async () => {
    await page.getByRole('button', { name: 'Clear the cache' }).click();
    await page.getByRole('button', { name: 'Clear every entry of this tenant' }).click();
    await page.getByText(/\d+ cache entries cleared; the statistics are kept\./).waitFor();
    await page.getByLabel('Most output tokens per call').fill('99999');
    await page.getByText('A whole number from 1 to 32768.').waitFor();
    await page.getByLabel('Most output tokens per call').fill('2048');
    await page.getByLabel('Engagement mode', { exact: true }).selectOption('thorough');
    await page.getByRole('button', { name: 'Save budget' }).click();
    await page.getByText('Budget saved.').waitFor();
    await page.getByText(/Now: escalation up to 4 tier\(s\), 10 candidates per tier, 8 iteration\(s\)\./).waitFor();
    expect((await api('GET', '/api/v1/tokens/budget')).body.budget).toMatchObject({ maxOutputTokens: 2048, engagementMode: 'thorough' });
  });

  it('reviews a pasted diff: the verdict, and the findings placed on the diff, with markup shown as text', async () => {
    const ops = pythonProject['calc/ops.py']!;
    writeFileSync(
      path.join(fx.work, 'calc/ops.py'),
      ops.replace(
        'def mul(a, b):\n    return a * b',
        `AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\nBANNER = '${xssLine}'\n\n\ndef mul(a, b):\n    return eval(f"{a} * {b}")`,
      ),
    );
    git(fx.work, 'add', '-A');
    const diff = gitRaw(fx.work, 'diff', '--cached');
    git(fx.work, 'reset', '-q', '--hard', 'HEAD');
    await page.getByRole('link', { name: 'Review' }).click();
    await heading('Review');
    await page.getByLabel('Repository').fill('acme/widget');
    await page.getByLabel('Diff', { exact: true }).fill(diff);
    await page.getByRole('button', { name: 'Run the review' }).click();
    await page.getByRole('heading', { name: /Verdict: Request changes score 35/ }).waitFor();
    const findings = page.getByRole('table', { name: 'Findings' });
    expect(await findings.getByRole('row').allInnerTexts()).toEqual([
      expect.stringMatching(/^Severity/),
      expect.stringMatching(/^high\tcalc\/ops\.py:9\tsecret\.aws-access-key\t/),
      expect.stringMatching(/^high\tcalc\/ops\.py:14\tdangerous\.eval\t/),
      expect.stringMatching(/^low\tthe change\ttests\.untouched\t/),
    ]);
    // Each finding sits under the new line it is about, in the side-by-side diff.
    const table = page.getByRole('table', { name: /calc\/ops\.py: old version on the left/ });
    const lines = await table
      .locator('tr')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()));
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    expect(at(/secret\.aws-access-key/)).toBe(at(/9 added: AWS_KEY = "AKIAIOSFODNN7EXAMPLE"/) + 1);
    expect(at(/dangerous\.eval/)).toBe(at(/14 added: return eval/) + 1);
    // The added line holding markup is its characters: no element made, no script run.
    await table.getByText(`BANNER = '${xssLine}'`).waitFor();
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '06-review');
  });

  it('reviews a pull request by number and posts the review on the forge', async () => {
    git(fx.work, 'checkout', '-q', '-b', 'feature/shell');
    writeFileSync(path.join(fx.work, 'calc/run.py'), 'import os\n\n\ndef run(cmd):\n    return os.system(cmd)\n');
    git(fx.work, 'add', '-A');
    git(fx.work, 'commit', '-qm', 'run commands');
    git(fx.work, 'push', '-q', 'origin', 'feature/shell');
    git(fx.work, 'checkout', '-q', 'main');
    const res = await fetch(`${forge.url}/repos/acme/widget/pulls`, {
      method: 'POST',
      body: JSON.stringify({ title: 'Shell', head: 'feature/shell', base: 'main', body: '' }),
    });
    const pr = (await res.json()) as { number: number };
    await page.getByLabel('What to review').selectOption('pull');
    await page.getByLabel('Pull request number').fill(String(pr.number));
    await page.getByLabel('Post the review on the pull request').check();
    await page.getByRole('button', { name: 'Run the review' }).click();
    await page.getByRole('heading', { name: /Verdict: Request changes score 65/ }).waitFor();
    await page.getByText(`Posted as review ${forge.reviews[0]!.id}.`).waitFor();
    expect(forge.reviews[0]).toMatchObject({ pull: pr.number, event: 'REQUEST_CHANGES' });
    expect(await page.getByRole('table', { name: 'Findings' }).getByRole('row').allInnerTexts()).toEqual([
      expect.stringMatching(/^Severity/),
      'high\tcalc/run.py:5\tdangerous.os-system\tos.system/os.popen run a shell command',
      'low\tthe change\ttests.untouched\t1 source file(s) changed and no test did',
    ]);
  });

  it('is usable from the keyboard: skip link, the screens in order, focus on the new title', async () => {
    await page.goto(`${t.base}/review`);
    await heading('Review');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      order.push((await page.evaluate('document.activeElement.textContent')) as string);
    }
    expect(order).toEqual(['Jobs', 'Clarifying questions', 'Review', 'Models', 'Operations']);
    await page.keyboard.press('Enter');
    await heading('Operations');
    expect(await page.evaluate('document.activeElement.id')).toBe('page-title');
  });

  it('signs out', async () => {
    expect(problems).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading('Sign in to the agent console');
    await page.goto(`${t.base}/operations`);
    await expect.poll(() => page.url()).toBe(`${t.base}/sign-in?next=%2Foperations`);
  });
});
