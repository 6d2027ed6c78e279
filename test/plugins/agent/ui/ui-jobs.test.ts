import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type AgentApp } from '../support.js';
import { hasChromium, launch, seriousViolations, shot, watchProblems } from './browser.js';
import { JobsContractFixture, type FixtureJob } from './jobs-contract-fixture.js';

const xssTitle = '<img src=x onerror="window.__xss=1">Fix mul <script>window.__xss=2</script>';
const xssLine = 'BANNER = "<img src=x onerror=window.__xss=3>"';
const diff = [
  'diff --git a/calc/ops.py b/calc/ops.py',
  'index 1111111..2222222 100644',
  '--- a/calc/ops.py',
  '+++ b/calc/ops.py',
  '@@ -1,5 +1,5 @@',
  ' def add(a, b):',
  '     return a + b',
  // A removed line that reads like a file header: the hunk is read by its counts.
  '--- legacy',
  '+' + xssLine,
  ' def mul(a, b):',
  '-    return a + b',
  '+    return a * b',
  '',
].join('\n');
const at = (min: number) => new Date(Date.UTC(2026, 10, 26, 9, min)).toISOString();
const ticket = (id: string, title: string) => ({
  ticket_id: id,
  repo_name: 'acme/widget',
  title,
  description: `Ticket ${id}.\nSecond line.`,
  labels: ['bug'],
  source: 'api' as const,
});

function job(id: string, state: string, title: string, min: number, extra: Partial<FixtureJob> = {}): FixtureJob {
  return {
    id,
    state,
    ticket: ticket(id.replace('job_', 'T-'), title),
    role: 'triage',
    tier: 3,
    createdAt: at(min),
    updatedAt: at(min + 1),
    costUsd: 0.0012,
    timeline: [
      { state: 'queued', at: at(min) },
      { state: 'triaging', at: at(min + 1), role: 'triage', model: 'deepseek/deepseek-chat', tier: 3, costUsd: 0.0012, tokens: 1410 },
    ],
    attempts: [],
    ...extra,
  };
}

/**
 * The Jobs board and Clarifying questions screens in Chromium, against a FIXTURE (jobs-contract-fixture.ts)
 * serving `/api/v1/jobs*` and the `ticket.*` feed in the real pipeline's shapes in front of a real
 * agent: the rendering of many jobs, markup in a diff, live moves, a refused answer. The real
 * pipeline end to end in the browser is ui-jobs-pipeline.test.ts.
 */
describe.skipIf(!hasChromium)('agent console jobs screens against a fixture in the real shapes', { timeout: 60_000 }, () => {
  let t: AgentApp;
  let fx: JobsContractFixture;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1' });
    fx = await new JobsContractFixture(t.base).start();
    fx.add(
      job('job_done', 'completed', xssTitle, 1, {
        role: 'backend-python',
        tier: 6,
        costUsd: 0.0421,
        pullRequest: { number: 7, url: 'https://forge.example/acme/widget/pull/7' },
        branch: 'agent/T-done-fix',
        commit: 'a'.repeat(40),
        diff,
        tests: { passed: true, exitCode: 0, output: '4 passed in 0.02s\n<b>not bold</b>', command: ['python3', '-m', 'pytest', '-q'] },
        attempts: [
          {
            n: 1,
            tier: 6,
            model: 'openai/gpt-4.1',
            diff: diff.replace('a * b', 'a ** b'),
            verified: true,
            tests: { passed: false, exitCode: 1, output: 'FAILED tests/test_ops.py::test_mul', command: ['python3', '-m', 'pytest', '-q'] },
            costUsd: 0.01,
            at: at(4),
          },
          {
            n: 2,
            tier: 6,
            model: 'openai/gpt-4.1',
            diff,
            verified: true,
            tests: { passed: true, exitCode: 0, output: '4 passed in 0.02s', command: ['python3', '-m', 'pytest', '-q'] },
            costUsd: 0.0152,
            at: at(5),
          },
        ],
        timeline: [
          { state: 'queued', at: at(1) },
          { state: 'triaging', at: at(2), role: 'triage', model: 'deepseek/deepseek-chat', tier: 3, costUsd: 0.0012, tokens: 1410 },
          { state: 'planning', at: at(3), role: 'backend-python', model: 'google/gemini-2.5-pro', tier: 6, costUsd: 0.0157, tokens: 5840 },
          {
            state: 'patching',
            at: at(4),
            role: 'backend-python',
            model: 'openai/gpt-4.1',
            tier: 6,
            costUsd: 0.0252,
            tokens: 9300,
            note: 'attempt 2',
          },
          { state: 'testing', at: at(5), role: 'backend-python', note: '4 passed' },
          { state: 'proposing', at: at(6), role: 'backend-python' },
          { state: 'completed', at: at(7) },
        ],
      }),
    );
    fx.add(
      job('job_ask', 'awaiting_clarification', 'Rounding of totals', 2, {
        questions: [
          {
            id: 'q1',
            question: 'Which rounding should totals use?',
            choices: [
              { id: 'half-up', label: 'Half up (1.005 → 1.01)' },
              { id: 'bankers', label: "Banker's rounding" },
            ],
            allowFreeText: false,
          },
          { id: 'q2', question: 'Anything else the fix must keep?', choices: [], allowFreeText: true },
        ],
      }),
    );
    fx.add(job('job_patch', 'patching', 'Crash on empty input', 3, { role: 'backend-python', tier: 6 }));
    fx.add(job('job_fail', 'failed', 'Flaky import', 4, { error: { code: 'tests_failed', message: 'Tests still fail after 4 attempts.' } }));
    fx.onAnswered = (j) => {
      fx.setState(j.id, 'patching', { role: 'backend-python', model: 'openai/gpt-4.1', tier: 6, costUsd: 0.02 });
      fx.setState(j.id, 'testing', { role: 'backend-python' });
      j.pullRequest = { number: 8, url: 'https://forge.example/acme/widget/pull/8' };
      fx.setState(j.id, 'completed', { role: 'backend-python' });
      fx.emit('ticket.completed', j.id, { ticket: j.ticket });
    };
    browser = await launch();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchProblems(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await fx?.stop();
    await t?.stop();
  });

  const column = (state: string) => page.getByRole('region', { name: new RegExp('^' + state.replace(/_/g, ' ') + ' \\d+$') });

  it('shows the jobs by state, with a ticket title holding markup rendered as text', async () => {
    await page.goto(`${fx.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
    await column('completed').getByRole('link', { name: xssTitle }).waitFor();
    await column('awaiting clarification').getByRole('link', { name: 'Rounding of totals' }).waitFor();
    await column('patching').getByRole('link', { name: 'Crash on empty input' }).waitFor();
    await column('failed').getByRole('link', { name: 'Flaky import' }).waitFor();
    expect(await column('completed').getByRole('link', { name: 'Pull request #7' }).getAttribute('href')).toBe('https://forge.example/acme/widget/pull/7');
    expect(await column('queued').getByText('None.').count()).toBe(1);
    expect(await page.locator('main img, main script').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '10-jobs-board');
  });

  it('moves a job to its new column live, from a ticket.state event', async () => {
    await page.getByText('4 job(s); updated live from the telemetry feed.').waitFor();
    await expect.poll(() => fx.listeners).toBe(1);
    fx.setState('job_patch', 'testing', { role: 'backend-python' });
    await column('testing').getByRole('link', { name: 'Crash on empty input' }).waitFor();
    expect(await column('patching').getByText('None.').count()).toBe(1);
  });

  it('opens a job: timeline with roles, models and cost per step, the diff side by side, test output and the PR link', async () => {
    await column('completed').getByRole('link', { name: xssTitle }).click();
    await page.getByRole('heading', { level: 1, name: xssTitle }).waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('page-title');
    await page.getByText('Roles involved: triage, backend-python.').waitFor();
    const steps = page.getByRole('table', { name: 'Steps with their role, model, tokens and cost' });
    expect(await steps.getByRole('row').nth(3).getByRole('cell').allInnerTexts()).toEqual([
      expect.any(String),
      'planning',
      'backend-python',
      'google/gemini-2.5-pro',
      '6',
      '5,840',
      '$0.0157',
      '',
    ]);
    expect(await page.getByRole('link', { name: '#7' }).getAttribute('href')).toBe('https://forge.example/acme/widget/pull/7');
    await page.getByText('Total cost $0.0421').waitFor();
    const table = page.getByRole('region', { name: 'Diff' }).getByRole('table', { name: /calc\/ops\.py: old version on the left/ });
    const rows = await table
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((r) => (r as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()));
    expect(rows).toEqual([
      '@@ -1,5 +1,5 @@',
      '1 def add(a, b): 1 def add(a, b):',
      '2 return a + b 2 return a + b',
      `3 removed: -- legacy 3 added: ${xssLine}`,
      '4 def mul(a, b): 4 def mul(a, b):',
      '5 removed: return a + b 5 added: return a * b',
    ]);
    expect(await page.getByLabel('Test output', { exact: true }).innerText()).toBe('4 passed in 0.02s\n<b>not bold</b>');
    await page.getByText('Attempt 1: patch verified, tests failed').click();
    expect(await page.getByLabel('Test output of attempt 1').innerText()).toBe('FAILED tests/test_ops.py::test_mul');
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '11-job-detail');
  });

  it('answers clarifying questions in a form: choices and free text, posted as the contract says, and the job resumes to a PR', async () => {
    await page.getByRole('link', { name: 'Clarifying questions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clarifying questions' }).waitFor();
    const card = page.getByRole('region', { name: 'Rounding of totals' });
    const q1 = card.getByRole('group', { name: 'Which rounding should totals use?' });
    await q1.getByRole('radio', { name: "Banker's rounding" }).waitFor();
    const send = card.getByRole('button', { name: 'Send answers' });
    expect(await send.isDisabled()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await shot(page, '12-questions');
    // Keyboard: the first choice takes focus from Tab, the arrow picks the next.
    await q1.getByRole('radio', { name: 'Half up (1.005 → 1.01)' }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await q1.getByRole('radio', { name: "Banker's rounding" }).isChecked()).toBe(true);
    expect(await send.isDisabled()).toBe(true);
    await card.getByRole('group', { name: 'Anything else the fix must keep?' }).getByLabel('Your answer').fill('Keep <i>two</i> decimals');
    await send.click();
    await page.getByText(/Answers sent for Rounding of totals: the job is planning\./).waitFor();
    expect(fx.answersReceived).toEqual([
      {
        jobId: 'job_ask',
        body: {
          answers: [
            { questionId: 'q1', choiceId: 'bankers' },
            { questionId: 'q2', text: 'Keep <i>two</i> decimals' },
          ],
        },
      },
    ]);
    await page.getByText('No job is waiting for an answer.').waitFor();
    // The board shows it completed with its pull request, live.
    await page.getByRole('link', { name: 'Jobs' }).click();
    await column('completed').getByRole('link', { name: 'Rounding of totals' }).waitFor();
    await column('completed').getByRole('link', { name: 'Pull request #8' }).waitFor();
  });

  it('shows a refused answer (409 job_not_awaiting) where it happened, and cancels a running job', async () => {
    fx.jobs.get('job_ask')!.state = 'awaiting_clarification';
    await page.goto(`${fx.url}/jobs/job_ask`);
    await page.getByRole('heading', { level: 1, name: 'Rounding of totals' }).waitFor();
    fx.jobs.get('job_ask')!.state = 'completed';
    await page.getByRole('radio', { name: 'Half up (1.005 → 1.01)' }).check();
    await page.getByLabel('Your answer').fill('none');
    await page.getByRole('button', { name: 'Send answers' }).click();
    await page.getByRole('alert').filter({ hasText: 'job_not_awaiting' }).waitFor();
    expect(problems).toEqual([expect.stringMatching(/status of 409/)]);
    problems.length = 0;
    await page.goto(`${fx.url}/jobs/job_patch`);
    await page.getByRole('heading', { level: 1, name: 'Crash on empty input' }).waitFor();
    await page.getByRole('button', { name: 'Cancel the job' }).click();
    await page.locator('.meta-line').getByText('cancelled', { exact: true }).waitFor();
    expect(fx.cancels).toEqual(['job_patch']);
    expect(await page.getByRole('button', { name: 'Cancel the job' }).count()).toBe(0);
  });
});
