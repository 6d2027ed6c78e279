import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/app.js';
import { ForgeServer } from './forge-server.js';
import { git, gitRaw, makeRepo, type Fixture } from './git-fixture.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { eventsOf, startAgent, type AgentApp } from './support.js';
import { configureProvider, diffOf, scriptProvider, statesOf, waitForState, type TicketScript } from './ticket-support.js';

const slug = "export function slugify(title: string): string {\n  return title.toLowerCase().replace(/ /g, '-');\n}\n";
const fixedSlug =
  "export function slugify(title: string): string {\n  return title\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-|-$/g, '');\n}\n";
/** Drops punctuation but leaves a trailing dash: applies, and fails the typed test. */
const halfFixedSlug = "export function slugify(title: string): string {\n  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-');\n}\n";
/** The repository's test: TypeScript with annotations (Node 20 cannot run it without the loader), importing NodeNext-style. */
const slugTest = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { slugify } from '../lib/slug.js';",
  '',
  'type Case = { title: string; slug: string };',
  "const cases: Case[] = [{ title: 'Hello,  World!', slug: 'hello-world' }];",
  '',
  "test('drops punctuation', () => {",
  '  for (const { title, slug } of cases) assert.equal(slugify(title), slug);',
  '});',
  '',
].join('\n');
/** The test command a run reports for it (the sandbox adds Tessera's TypeScript loader with `--import`). */
const tsCommand = ['node', '--test', 'test/slug.test.ts'];

/** Added or removed lines of a diff. */
const counted = (diff: string, sign: '+' | '-') => diff.split('\n').filter((l) => l.startsWith(sign) && !l.startsWith(sign.repeat(3))).length;

describe('ticket jobs end to end: a TypeScript repository with node --test', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  const scripts = new Map<string, TicketScript>();
  let good = '';
  /** The same fix with a comment naming the ticket: each ticket gets its own diff, so its own branch and pull request. */
  const fixFor = (ticket: string) => diffOf(fx.work, { 'lib/slug.ts': `// ${ticket}\n${fixedSlug}` });

  beforeAll(async () => {
    fx = makeRepo('acme', 'web', {
      'package.json': JSON.stringify({ name: 'web', type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n',
      'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', strict: true, noEmit: true } }, null, 2) + '\n',
      'lib/slug.ts': slug,
      'lib/page.ts': "import { slugify } from './slug.js';\n\nexport function link(title: string): string {\n  return `/posts/${slugify(title)}`;\n}\n",
      'test/slug.test.ts': slugTest,
    });
    forge = await new ForgeServer('ghp_js').start();
    forge.addRepo('acme/web', fx.bare);
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    good = diffOf(fx.work, { 'lib/slug.ts': fixedSlug });
    t = await startAgent(
      {
        baseUrl: provider.baseUrl,
        reposRoot: fx.reposRoot,
        forge: { baseUrl: forge.url, token: 'ghp_js' },
        workspaces: { refreshSeconds: 0 },
        tickets: { perTenant: 1 },
      },
      { dataDir: path.join(tempDir(), 'data') },
    );
  });
  afterAll(async () => {
    await t?.stop();
    await forge?.stop();
    await provider?.close();
  });

  it('fails into the dead-letter queue with provider_not_configured, and a replay finishes the job once a provider is set', async () => {
    const sync = await t.call('POST', '/api/v1/agent/remediate', { repo: 'acme/web', instructions: 'make slugify drop punctuation' });
    expect([sync.status, sync.body.error.code]).toEqual([409, 'provider_not_configured']);
    scripts.set('TS-0', { triage: [{ actionable: true, summary: 'slugify keeps punctuation', files: ['lib/slug.ts'] }], patches: [good] });
    const res = await t.call('POST', '/api/v1/tickets/webhook', {
      ticket_id: 'TS-0',
      repo_name: 'acme/web',
      title: 'Slugs keep punctuation',
      description: 'slugify("Hello,  World!") should be hello-world',
    });
    const failed = await waitForState(t, res.body.jobId, ['failed', 'completed']);
    expect(statesOf(failed)).toEqual(['queued', 'triaging', 'failed']);
    expect(failed.error).toEqual({ code: 'provider_not_configured', message: expect.stringContaining('POST /api/v1/models/config') });
    expect(provider.chats).toHaveLength(0);
    let record: any;
    for (let i = 0; i < 50 && !record; i++) {
      record = (await t.call('GET', '/api/v1/telemetry/dlq')).body.records.find((r: any) => r.details?.ticketJobId === res.body.jobId);
      if (!record) await new Promise((r) => setTimeout(r, 100));
    }
    expect(record).toMatchObject({ jobName: 'ticket', error: { code: 'provider_not_configured' }, input: { ticket: { ticket_id: 'TS-0' } } });

    await configureProvider(t);
    const replay = await t.call('POST', `/api/v1/telemetry/dlq/${record.id}/replay`);
    expect(replay.status).toBe(202);
    // The record stays `failed` until the replayed run starts, so wait for the replay's own end: a second final state.
    let done: any;
    for (let i = 0; i < 900; i++) {
      done = await waitForState(t, res.body.jobId, ['completed', 'failed']);
      if (done.timeline.length > 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(done.id).toBe(res.body.jobId);
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'failed', 'queued', 'triaging', 'planning', 'patching', 'testing', 'proposing', 'completed']);
    expect(done.timeline[3].note).toBe(`replayed from dead letter ${record.id}`);
    expect(done.replays).toEqual([replay.body.job.id]);
    expect(done.error).toBeUndefined();
    expect(done.role).toBe('frontend-ui');
    expect(done.triage.roleSource).toBe('heuristic');
    expect(done.tests).toMatchObject({ passed: true, exitCode: 0, command: tsCommand });
    expect(gitRaw(fx.bare, 'show', `${done.commit}:lib/slug.ts`)).toBe(fixedSlug);
    // The ticket's record completes just before its run does.
    let after: any;
    for (let i = 0; i < 50 && after?.replayState !== 'completed'; i++) {
      after = (await t.call('GET', '/api/v1/telemetry/dlq')).body.records.find((r: any) => r.id === record.id);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(after).toMatchObject({ replayState: 'completed', replays: [{ jobId: replay.body.job.id }] });
  });

  it('iterates on the typed test: a diff that does not apply, one that fails the test, one that passes, then a pull request', async () => {
    const passing = fixFor('TS-5');
    const failing = diffOf(fx.work, { 'lib/slug.ts': halfFixedSlug });
    // Written against a line the file does not hold: it does not apply.
    const stale = passing.replace("-  return title.toLowerCase().replace(/ /g, '-');", "-  return title.toUpperCase().replace(/ /g, '_');");
    expect(stale).not.toBe(passing);
    scripts.set('TS-5', { triage: [{ actionable: true, summary: 'slugify keeps punctuation', files: ['lib/slug.ts'] }], patches: [stale, failing, passing] });
    const res = await t.call('POST', '/api/v1/tickets/webhook', {
      ticket_id: 'TS-5',
      repo_name: 'acme/web',
      title: 'Slugs keep punctuation and dashes',
      description: 'slugify("Hello,  World!") should be hello-world',
    });
    const done = await waitForState(t, res.body.jobId, ['completed', 'failed']);
    expect(done.error).toBeUndefined();
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'planning', 'patching', 'patching', 'testing', 'patching', 'testing', 'proposing', 'completed']);
    expect(done.attempts.map((a: any) => [a.n, a.verified, a.tests?.passed ?? null])).toEqual([
      [1, false, null],
      [2, true, false],
      [3, true, true],
    ]);
    expect(done.attempts[0].verifyError).toContain('does_not_apply');
    // The typed test ran (types stripped) and failed on its assertion, not on the syntax.
    expect(done.attempts[1].tests).toMatchObject({ passed: false, exitCode: 1, command: tsCommand });
    expect(done.attempts[1].tests.output).toContain('not ok 1 - drops punctuation');
    expect(done.attempts[1].tests.output).toContain("'hello-world-'");
    expect(done.attempts[1].tests.output).not.toMatch(/SyntaxError|ERR_UNKNOWN_FILE_EXTENSION/);
    expect(done.attempts[2].tests).toMatchObject({ passed: true, exitCode: 0, command: tsCommand });
    expect(done.attempts[2].tests.output).toMatch(/# pass 1\n# fail 0/);
    expect(gitRaw(fx.bare, 'show', `${done.commit}:lib/slug.ts`)).toBe(`// TS-5\n${fixedSlug}`);
    const pr = forge.pulls.find((p) => p.head === done.branch)!;
    expect(done.branch).toMatch(/^agent\/patch-[0-9a-f]{12}$/);
    expect(pr.body).toContain('Iterations: 3');
    expect(pr.body).toContain('`node --test test/slug.test.ts` passed in the sandbox');
  });

  it('pauses on clarifying questions without holding a job slot, and resumes with the answers in its context', async () => {
    const questions = [
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
    ];
    scripts.set('TS-1', {
      triage: [{ actionable: false, summary: 'unclear what slugs should contain', role: 'frontend-ui', questions }],
      patches: [fixFor('TS-1')],
    });
    const res = await t.call('POST', '/api/v1/tickets/webhook', {
      ticket_id: 'TS-1',
      repo_name: 'acme/web',
      title: 'Slugs look odd',
      description: 'Some slugs look odd.',
    });
    const paused = await waitForState(t, res.body.jobId, ['awaiting_clarification', 'failed']);
    expect(statesOf(paused)).toEqual(['queued', 'triaging', 'awaiting_clarification']);
    expect(paused.questions).toEqual(questions);
    const [asked] = await eventsOf(t, `kind=ticket.questions&job=${paused.id}`);
    expect(asked.data).toEqual({ jobId: paused.id, questions });
    // The run that asked has ended: no slot is held while a human thinks.
    const ended = await eventsOf(t, `kind=job.completed&job=${paused.runs[0]}`);
    expect(ended).toHaveLength(1);

    let r = await t.call('POST', `/api/v1/jobs/${paused.id}/answers`, { answers: [{ questionId: 'punctuation', choiceId: 'maybe' }] });
    expect([r.status, r.body.error.code]).toEqual([400, 'answers_invalid']);
    r = await t.call('POST', `/api/v1/jobs/${paused.id}/answers`, { answers: [{ questionId: 'punctuation', choiceId: 'drop' }] });
    expect([r.status, r.body.error.message]).toEqual([400, 'The answers do not fit the questions: unanswered: notes']);
    r = await t.call('POST', `/api/v1/jobs/${paused.id}/answers`, {
      answers: [
        { questionId: 'punctuation', choiceId: 'drop' },
        { questionId: 'notes', text: 'Collapse repeated dashes.' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, jobId: paused.id, state: 'queued' });
    const done = await waitForState(t, paused.id, ['completed', 'failed']);
    expect(statesOf(done)).toEqual(['queued', 'triaging', 'awaiting_clarification', 'queued', 'planning', 'patching', 'testing', 'proposing', 'completed']);
    expect(done.answers).toEqual([
      { questionId: 'punctuation', choiceId: 'drop' },
      { questionId: 'notes', text: 'Collapse repeated dashes.' },
    ]);
    const patchCall = provider.chats.find(
      (c) => String(c.body.messages[1].content).includes('Ticket TS-1:') && !String(c.body.messages[0].content).includes('triage'),
    )!;
    expect(patchCall.body.messages[1].content).toContain(
      'Clarifications from the reviewers:\n- What should happen to punctuation? -> Drop it\n- Anything else? -> Collapse repeated dashes.',
    );
    expect(forge.pulls.find((p) => p.head === done.branch)!.body).toContain("Clarified by 2 answer(s) to the agent's questions");

    r = await t.call('POST', `/api/v1/jobs/${paused.id}/answers`, { answers: [{ questionId: 'punctuation', choiceId: 'drop' }] });
    expect([r.status, r.body.error.code]).toEqual([409, 'job_not_awaiting']);
  });

  it('cancels a running job, and refuses to cancel a finished one', async () => {
    scripts.set('TS-2', { triage: [{ actionable: true, summary: 's' }], patches: [good], triageDelayMs: 3000 });
    const res = await t.call('POST', '/api/v1/tickets/webhook', { ticket_id: 'TS-2', repo_name: 'acme/web', title: 'Slugs again', description: 'slugify' });
    await waitForState(t, res.body.jobId, ['triaging']);
    const c = await t.call('POST', `/api/v1/jobs/${res.body.jobId}/cancel`);
    expect(c.body).toEqual({ ok: true, jobId: res.body.jobId, state: 'cancelled' });
    await new Promise((r) => setTimeout(r, 3500));
    const job = (await t.call('GET', `/api/v1/jobs/${res.body.jobId}`)).body.job;
    expect(statesOf(job)).toEqual(['queued', 'triaging', 'cancelled']);
    expect(job.attempts).toEqual([]);
    expect((await eventsOf(t, `kind=job.cancelled&job=${job.runs[0]}`)).length).toBe(1);
    expect((await t.call('POST', `/api/v1/jobs/${res.body.jobId}/cancel`)).body.state).toBe('cancelled');
    const done = (await t.call('GET', '/api/v1/jobs?state=completed')).body.jobs[0];
    const r = await t.call('POST', `/api/v1/jobs/${done.id}/cancel`);
    expect([r.status, r.body.error.code]).toEqual([409, 'job_finished']);
  });

  it('runs one job of a tenant at a time with perTenant 1; the other waits queued', async () => {
    for (const id of ['TS-3', 'TS-4'])
      scripts.set(id, { triage: [{ actionable: true, summary: 's', role: 'frontend-ui' }], patches: [fixFor(id)], triageDelayMs: 300 });
    const a = await t.call('POST', '/api/v1/tickets/webhook', { ticket_id: 'TS-3', repo_name: 'acme/web', title: 'One', description: 'slugify' });
    const b = await t.call('POST', '/api/v1/tickets/webhook', { ticket_id: 'TS-4', repo_name: 'acme/web', title: 'Two', description: 'slugify' });
    const [ja, jb] = [await waitForState(t, a.body.jobId, ['completed', 'failed']), await waitForState(t, b.body.jobId, ['completed', 'failed'])];
    const span = (j: any) => [Date.parse(j.timeline[1].at), Date.parse(j.timeline.at(-1).at)] as const;
    const [first, second] = span(ja)[0] < span(jb)[0] ? [ja, jb] : [jb, ja];
    expect(span(second)[0]).toBeGreaterThanOrEqual(span(first)[1]);
    expect(second.runs.length).toBeGreaterThan(1);
    expect([ja.state, jb.state]).toEqual(['completed', 'completed']);
  });

  it('answers a verified, tested diff synchronously for instructions', async () => {
    scripts.set('SYNC-1', { triage: [], patches: [good] });
    const res = await t.call('POST', '/api/v1/agent/remediate', {
      repo: 'acme/web',
      instructions: 'SYNC-1: slugify must drop punctuation',
      files: ['lib/slug.ts'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      diff: good,
      files: [{ path: 'lib/slug.ts', status: 'modified', additions: counted(good, '+'), deletions: counted(good, '-') }],
      model: expect.any(String),
      role: 'frontend-ui',
      baseBranch: 'main',
      baseCommit: git(fx.bare, 'rev-parse', 'refs/heads/main'),
      attempts: [
        { n: 1, tier: 3, model: expect.any(String), diff: good, verified: true, tests: expect.objectContaining({ passed: true }), costUsd: expect.any(Number) },
      ],
      verified: true,
      tests: { passed: true, exitCode: 0, output: expect.stringContaining('pass 1'), command: tsCommand },
      costUsd: expect.any(Number),
    });
    const bad = await t.call('POST', '/api/v1/agent/remediate', { repo: 'acme/web' });
    expect([bad.status, bad.body.error.details.issues[0].path]).toEqual([400, 'body.instructions']);
  });
});
