import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../helpers/app.js';
import { hasChromium, launch, seriousViolations } from '../console/browser.js';
import { orders, ping, xss } from './hub-ui-fixtures.js';
import { startWorkflow, type WfApp } from './helpers.js';

const artifacts = path.join(repoRoot, 'test-artifacts', 'hub');

describe.skipIf(!hasChromium)('workflow hub UI in Chromium', { timeout: 60_000 }, () => {
  let w: WfApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true });
    w = await startWorkflow();
    for (const spec of [orders, ping]) expect((await w.call('POST', '/hub/workflows', { body: spec })).status).toBe(201);
    browser = await launch();
    context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && !/status of 40[134]/.test(m.text()) && problems.push(`console: ${m.text()}`));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await w?.stop();
  });

  const go = (p: string) => page.goto(w.base + p);
  const heading = () => page.locator('h1');
  const shot = (name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
  const noSerious = async () => expect(await seriousViolations(page)).toEqual([]);

  it('sends a signed-out user to sign-in and signs in with a key through the session cookie', async () => {
    const scripts = new Map<string, number>();
    page.on('response', async (r) => {
      if (r.request().resourceType() === 'script') scripts.set(r.url(), gzipSync(await r.body()).length);
    });
    await go('/workflows');
    await expect.poll(() => page.url()).toBe(`${w.base}/sign-in?next=%2Fworkflows`);
    await heading().filter({ hasText: 'Sign in to the workflow hub' }).waitFor();
    const firstRenderMs = Math.round((await page.evaluate('performance.now()')) as number);
    page.removeAllListeners('response');
    const total = [...scripts.values()].reduce((a, b) => a + b, 0);
    writeFileSync(
      path.join(artifacts, 'budget.json'),
      JSON.stringify({ firstRenderMs, scriptsGzipBytes: total, scripts: Object.fromEntries(scripts) }, null, 2),
    );
    // Served from this origin only, within the control plane's budget.
    for (const url of scripts.keys()) expect(url.startsWith(w.base)).toBe(true);
    expect(total).toBeLessThanOrEqual(100 * 1024);
    await noSerious();
    await shot('01-sign-in');
    await page.getByLabel('API key').fill(w.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${w.base}/workflows`);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'tessera_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
  });

  it('lists workflows with route, tags, version and last run, markup in a tag shown as text', async () => {
    const row = page.getByRole('row').filter({ hasText: 'orders' });
    await row.waitFor();
    expect(await row.locator('td').allInnerTexts()).toEqual(['orders', 'POST /orders', `shop ${xss}`, '1', 'hub', 'never run', expect.any(String)]);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await noSerious();
    await shot('02-workflows');
  });

  it('draws the DAG, places a validation error on its path and line, then saves the fix and serves it', async () => {
    await page.getByRole('link', { name: 'orders', exact: true }).click();
    await heading().filter({ hasText: 'Workflow orders' }).waitFor();
    const drawing = page.getByRole('img', { name: /Drawing of the workflow orders: 11 steps/ });
    await drawing.waitFor();
    for (const label of ['branch 0', 'branch 1', 'if {{input.amount}} > 100', 'else', 'when {{input.amount}} > 1000', 'default'])
      await drawing.locator('text.dag-lane-label', { hasText: label }).first().waitFor();
    expect(await drawing.locator('g.dag-node').count()).toBe(11);
    const editor = page.getByLabel('Workflow JSON');
    const good = await editor.inputValue();
    // A step clicked in the drawing is selected in the JSON.
    await drawing.locator('g.dag-node[data-path="$.steps[1].branches[1][1]"]').click();
    const selection = 'document.activeElement.value?.slice(document.activeElement.selectionStart, document.activeElement.selectionEnd)';
    // The editor takes focus and the selection after the drawing's click handler has run.
    await expect.poll(() => page.evaluate(selection)).not.toBeUndefined();
    expect(JSON.parse((await page.evaluate(selection)) as string)).toEqual(orders.steps[1]!.branches![1]![1]);
    expect(JSON.parse(good)).toMatchObject({ name: 'orders', steps: orders.steps });
    // An attribute nobody supplies: the server's error lands on the value's line and outlines the step.
    await editor.fill(good.replace('"amount": "{{input.amount}}"', '"amount": "{{attrs.region}}"'));
    const problem = page.locator('.json-problems li[data-path="$.steps[0].config.set.amount"]');
    await problem.waitFor();
    expect(await problem.innerText()).toContain('no attribute "region"');
    const line = good.split('\n').findIndex((l) => l.includes('"amount": "{{input.amount}}"')) + 1;
    expect(await problem.getByRole('button').innerText()).toBe(`line ${line}`);
    expect(await page.locator('.json-gutter li.json-gutter-bad').allInnerTexts()).toEqual([`⚠ ${line}`]);
    expect(await drawing.locator('g.dag-bad').getAttribute('data-path')).toBe('$.steps[0]');
    expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
    expect(await editor.getAttribute('aria-invalid')).toBe('true');
    // Choosing the error selects the offending value in the text.
    await problem.getByRole('button').click();
    expect(await page.evaluate(selection)).toBe('"amount": "{{attrs.region}}"');
    await noSerious();
    await shot('03-workflow-error');
    // Not JSON at all: the parse error is on its line too.
    await editor.fill(good.replace('"version": "1",', '"version": "1"'));
    await page.locator('.json-problems li').filter({ hasText: 'not JSON' }).waitFor();
    await editor.fill(good.replace('"version": "1"', '"version": "2"'));
    await page.locator('.json-problems').waitFor({ state: 'detached' });
    await page.getByText('valid', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved version 2: POST /orders is served now.').waitFor();
    const stored = await w.call('GET', '/hub/workflows');
    expect(stored.body.workflows.find((x: { id: string }) => x.id === 'orders').version).toBe('2');
  });

  it('calls the live route and finds the execution in traces with its waterfall', async () => {
    await page.getByLabel('Request body (JSON)').fill('{"customer": "c1", "amount": 150}');
    await page.getByRole('button', { name: 'Call POST /orders' }).click();
    const answer = page.locator('.try-answer');
    await answer.getByText('HTTP 200').waitFor();
    expect(JSON.parse(await answer.locator('pre').innerText())).toEqual({
      customer: 'c1',
      amount: 150,
      credit: 'ok',
      stock: 3,
      reserved: true,
      review: true,
      queue: 'auto',
    });
    const executionId = await answer.getByRole('link').innerText();
    // The trace list, filtered by workflow, status and the searchFields value.
    await page.getByRole('link', { name: 'Traces', exact: true }).click();
    await heading().filter({ hasText: 'Traces' }).waitFor();
    await page.getByLabel('Workflow').selectOption('orders');
    await page.getByLabel('Status').selectOption('completed');
    await page.getByLabel('Field customer').fill('c1');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => page.url()).toBe(`${w.base}/traces?workflow=orders&status=completed&field.customer=c1`);
    const row = page.getByRole('row').filter({ hasText: executionId });
    await row.waitFor();
    expect(await page.getByRole('row').count()).toBe(2);
    await noSerious();
    await shot('04-traces');
    // A time range that ends before the execution started holds nothing.
    await page.getByLabel('Started until').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No execution matches.').waitFor();
    await page.getByLabel('Started until').fill('');
    await page.getByLabel('Started from').fill('2020-01-01T00:00');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('row').filter({ hasText: executionId }).waitFor();
    await page.getByLabel('Field customer').fill('nobody');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No execution matches.').waitFor();
    await page.getByLabel('Field customer').fill('c1');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('row').filter({ hasText: executionId }).waitFor();
    // Following: an execution that finishes later appears without a reload.
    await page.getByLabel('Follow new executions (every 3 s)').check();
    const later = await fetch(`${w.base}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"customer": "c1", "amount": 7}' });
    await page
      .getByRole('row')
      .filter({ hasText: later.headers.get('x-execution-id')! })
      .waitFor({ timeout: 10_000 });
    await page.getByLabel('Follow new executions (every 3 s)').uncheck();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('link', { name: executionId }).click();
    await heading()
      .filter({ hasText: `Execution ${executionId}` })
      .waitFor();
    const waterfall = page.getByRole('img', { name: /Waterfall of 10 steps/ });
    await waterfall.waitFor();
    // The two fanOut branches are parallel rows; the second holds both its steps.
    const lanes = waterfall.locator('g.wf-lane');
    expect(await lanes.locator('text.wf-label').allTextContents()).toEqual(['lookup › branch 0', 'lookup › branch 1']);
    expect(await lanes.nth(1).locator('g.wf-bar').count()).toBe(2);
    expect(await waterfall.locator('g.wf-bar').count()).toBe(10);
    const trace = (await w.call('GET', `/hub/traces/${executionId}`)).body.trace;
    const credit = trace.steps.find((s: { id: string }) => s.id === 'credit');
    const stock = trace.steps.find((s: { id: string }) => s.id === 'stock');
    // Both branches started together: their bars overlap in time.
    expect(Math.abs(Date.parse(credit.startedAt) - Date.parse(stock.startedAt))).toBeLessThan(20);
    const creditRow = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'credit', exact: true }) });
    const cells = await creditRow.locator('td').allInnerTexts();
    expect(cells.slice(1, 4)).toEqual(['mock', 'lookup › branch 0', 'completed']);
    expect(cells[5]).toMatch(/^\d+(\.\d+)? ms$/);
    await page.getByRole('button', { name: 'reserve', exact: true }).click();
    expect(JSON.parse(await page.getByLabel('Input of reserve').innerText())).toEqual({ stock: 3 });
    expect(JSON.parse(await page.getByLabel('Output of reserve').innerText())).toEqual({ stock: 3, reserved: true });
    await noSerious();
    await shot('05-trace-waterfall');
    // Saved as a regression test from this trace.
    await page.getByLabel('Test name').fill('orders from c1');
    await page.getByRole('button', { name: 'Save test' }).click();
    await page.getByText('Saved as the test orders from c1').waitFor();
  });

  it('runs a failing test and shows its structural diff, and a passing one', async () => {
    const expected = { customer: 'c9', amount: 5, credit: 'ok', stock: 3, reserved: true, queue: 'manual' };
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await heading().filter({ hasText: 'Tests' }).waitFor();
    // Written out in the page, with a name holding markup.
    await page.getByLabel('Name', { exact: true }).fill(`wrong queue ${xss}`);
    await page.getByLabel('Workflow to test').selectOption('orders');
    await page.getByLabel('Input (JSON)').fill('{"customer": "c9", "amount": 5}');
    await page.getByLabel('Expected output (JSON)').fill(JSON.stringify(expected));
    await page.getByRole('button', { name: 'Save test' }).click();
    await page.getByRole('row').filter({ hasText: 'wrong queue' }).waitFor();
    const written = (await w.call('GET', '/hub/tests')).body.tests.find((x: { name: string }) => x.name.startsWith('wrong queue'));
    expect(written).toMatchObject({ name: `wrong queue ${xss}`, workflow: 'orders', input: { customer: 'c9', amount: 5 }, expected, ignore: [] });
    await page.getByRole('button', { name: `Run test wrong queue ${xss}` }).click();
    const failure = page.getByRole('region', { name: `Failure of wrong queue ${xss}` });
    await failure.waitFor();
    expect(await failure.getByRole('row').nth(1).locator('td').allInnerTexts()).toEqual(['$.queue', 'changed', '"manual"', '"auto"']);
    expect(await failure.getByRole('row').count()).toBe(2);
    await page.getByText('0 of 1 passed, 1 failed.', { exact: false }).waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    await noSerious();
    await shot('06-test-diff');
    await page.getByRole('button', { name: 'Run test orders from c1' }).click();
    await page.getByText('1 of 1 passed, 0 failed.', { exact: false }).waitFor();
    // Each test keeps its latest result across runs.
    expect(await page.getByRole('row').filter({ hasText: 'orders from c1' }).locator('td').nth(5).innerText()).toMatch(/^passed \d/);
    expect(await page.getByRole('row').filter({ hasText: 'wrong queue' }).locator('td').nth(5).innerText()).toMatch(/^failed \d/);
    await page.getByRole('button', { name: `Delete test wrong queue ${xss}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete test' }).click();
    await page.getByRole('button', { name: `Run test wrong queue ${xss}` }).waitFor({ state: 'detached' });
    expect((await w.call('GET', '/hub/tests')).body.tests.map((x: { name: string }) => x.name)).toEqual(['orders from c1']);
  });

  it('plans a deployment with a breaking change highlighted and downloads the bundle', async () => {
    await page.getByRole('link', { name: 'Deploy', exact: true }).click();
    await heading().filter({ hasText: 'Deploy' }).waitFor();
    const target = page.getByLabel('Target workflows (JSON array)');
    const current = JSON.parse(await target.inputValue()) as Array<{ name: string; route: { path: string } }>;
    expect(current.map((s) => s.name).sort()).toEqual(['orders', 'ping']);
    current.find((s) => s.name === 'orders')!.route.path = '/orders-v2';
    await target.fill(JSON.stringify(current.filter((s) => s.name === 'orders')));
    await page.getByRole('button', { name: 'Plan' }).click();
    await page.getByText('2 breaking changes').waitFor();
    const breaking = page.locator('.plan-destructive');
    expect(await breaking.count()).toBe(2);
    expect(await page.locator('.breaking li').allInnerTexts()).toEqual([
      'breaking route_removed orders: POST /orders is no longer served (moved to /orders-v2)',
      'breaking route_removed ping: GET /ping is removed',
    ]);
    await noSerious();
    await shot('07-deploy-plan');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download bundle' }).click()]);
    expect(download.suggestedFilename()).toBe('tessera-workflows.tar');
    const file = path.join(artifacts, 'tessera-workflows.tar');
    await download.saveAs(file);
    const listing = execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listing).toEqual([
      'tessera-workflows/',
      'tessera-workflows/README.md',
      'tessera-workflows/manifest.json',
      'tessera-workflows/package.json',
      'tessera-workflows/workflows/',
      'tessera-workflows/workflows/orders.json',
      'tessera-workflows/workflows/orders.test.json',
      'tessera-workflows/workflows/ping.json',
    ]);
    const spec = JSON.parse(execFileSync('tar', ['-xOf', file, 'tessera-workflows/workflows/orders.json'], { encoding: 'utf8' }));
    expect(spec).toMatchObject({ name: 'orders', version: '2' });
  });

  it('manages access: users, the permission matrix and a key shown once', async () => {
    await page.getByRole('link', { name: 'Access', exact: true }).click();
    await heading().filter({ hasText: 'Access' }).waitFor();
    const matrix = page.getByRole('table', { name: 'Permission matrix' });
    await matrix.waitFor();
    const deployRow = matrix.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'workflow:deploy' }) });
    const header = await matrix.getByRole('row').first().locator('th').allInnerTexts();
    const cells = await deployRow.locator('td').allInnerTexts();
    expect(cells[0]).toBe('workflow');
    const granted = header.slice(2).filter((_, i) => cells[i + 1]!.startsWith('✓'));
    expect(granted).toEqual(['superadmin', 'admin', 'operator']);
    // A custom role: a new column of the matrix.
    await page.getByLabel('Role name').fill('deployer');
    await page.getByLabel('Permissions of the role').selectOption(['workflow:read', 'workflow:deploy']);
    await page.getByRole('button', { name: 'Add role' }).click();
    await matrix.getByRole('columnheader', { name: 'deployer' }).waitFor();
    const columns = await matrix.getByRole('row').first().locator('th').allInnerTexts();
    const deployer = columns.indexOf('deployer');
    const granting: string[] = [];
    for (const r of await matrix.getByRole('row').all()) {
      const cells = await r.locator('th, td').allInnerTexts();
      if (cells[deployer]?.startsWith('✓')) granting.push(cells[0]!);
    }
    expect(granting).toEqual(['workflow:read', 'workflow:deploy']);
    await page.getByLabel('User name').fill('ops-ana');
    await page.getByLabel('Role', { exact: true }).selectOption('operator');
    await page.getByLabel('Password (optional, 12+ characters)').fill('tide tables at dawn');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('row').filter({ hasText: 'ops-ana' }).waitFor();
    await page.getByLabel('Key name').fill('ci deploy');
    await page.getByLabel('For user').selectOption({ label: 'ops-ana' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-secret').innerText();
    expect(secret).toMatch(/^tsk_/);
    const me = await fetch(`${w.base}/hub/me`, { headers: { 'x-api-key': secret } }).then((r) => r.json() as Promise<any>);
    expect(me.user.name).toBe('ops-ana');
    expect(me.permissions).toContain('workflow:deploy');
    await noSerious();
    await shot('08-access');
  });

  it('charts executions by status and latency percentiles per workflow', async () => {
    await page.getByRole('link', { name: 'Metrics', exact: true }).click();
    await heading().filter({ hasText: 'Metrics' }).waitFor();
    const status = page.getByRole('figure').filter({ hasText: 'Executions by status, per workflow' });
    await status.waitFor();
    const row = status.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'orders' }) });
    expect(await row.locator('td').allInnerTexts()).toEqual(['2', '–', '–', '–', '–']);
    expect(await status.locator('svg rect[fill="#146c2e"]').count()).toBeGreaterThan(1);
    const latency = page.getByRole('figure').filter({ hasText: 'Latency percentiles' });
    const lat = await latency
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'orders' }) })
      .locator('td')
      .allInnerTexts();
    expect(lat).toHaveLength(3);
    for (const v of lat) expect(v).toMatch(/ms$/);
    await noSerious();
    await shot('09-metrics');
  });

  it('is usable from the keyboard: skip link, screens in order, focus on the new title', async () => {
    await go('/workflows');
    await heading().filter({ hasText: 'Workflows' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      order.push((await page.evaluate('document.activeElement.textContent')) as string);
    }
    expect(order).toEqual(['Workflows', 'Traces', 'Tests', 'Deploy', 'Access', 'Metrics']);
    await page.keyboard.press('Enter');
    await heading().filter({ hasText: 'Metrics' }).waitFor();
    await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('page-title');
  });

  it('deletes a workflow after typing its name, and its route stops', async () => {
    await go('/workflows/ping');
    await heading().filter({ hasText: 'Workflow ping' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete workflow ping' });
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Delete' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Name of the workflow').fill('ping');
    await confirm.click();
    await expect.poll(() => page.url()).toBe(`${w.base}/workflows`);
    await page.getByRole('row').filter({ hasText: 'orders' }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'GET /ping' }).count()).toBe(0);
    expect((await fetch(`${w.base}/ping`)).status).toBe(404);
  });

  it('signs out; a password sign-in as an operator sees the spec read-only and is refused tests; nothing ran from the injected markup', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading().filter({ hasText: 'Sign in to the workflow hub' }).waitFor();
    await go('/workflows/orders');
    await expect.poll(() => page.url()).toBe(`${w.base}/sign-in?next=%2Fworkflows%2Forders`);
    // The operator signs in with a user name and password; the page offers only what it may do.
    await page.getByLabel('Sign in with').selectOption('password');
    await page.getByLabel('User name').fill('ops-ana');
    await page.getByLabel('Password').fill('tide tables at dawn');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toBe(`${w.base}/workflows/orders`);
    await page.getByRole('img', { name: /Drawing of the workflow orders/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    expect(await page.getByLabel('Workflow JSON').getAttribute('readonly')).not.toBeNull();
    await page.getByRole('link', { name: 'Tests', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'permission_denied' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading().filter({ hasText: 'Sign in to the workflow hub' }).waitFor();
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(problems).toEqual([]);
  });
});
