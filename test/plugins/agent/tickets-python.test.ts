import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultWorkspacesDir } from '../../../plugins/agent/part2.js';
import { patchBranch } from '../../../plugins/agent/patches/commit.js';
import { segment } from '../../../plugins/agent/repos/workspaces.js';
import { tempDir } from '../../helpers/app.js';
import { ForgeServer } from './forge-server.js';
import { git, gitRaw, makeRepo, type Fixture } from './git-fixture.js';
import { startProviderServer, type ModelListServer } from './provider-server.js';
import { eventsOf, startAgent, type AgentApp } from './support.js';
import { configureProvider, diffOf, scriptProvider, statesOf, waitForState, type TicketScript } from './ticket-support.js';

const token = 'ghp_tickets_python_token';
const secret = 'tessera-e2e-secret-value';
const escapee = path.join('/var/tmp', `tessera-e2e-escaped-${process.pid}.txt`);

/** A Python package whose `add` subtracts, its failing test, and tests that try to escape the sandbox. */
function pythonRepo(): Fixture {
  const root = tempDir('tessera-tickets-py-');
  const work = path.join(root, 'acme', 'calc');
  return makeRepo(
    'acme',
    'calc',
    {
      'calc/__init__.py': 'from .ops import add, mul\n',
      'calc/ops.py': 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n',
      'calc/report.py':
        'from .ops import add\n\n\ndef total(values):\n    result = 0\n    for v in values:\n        result = add(result, v)\n    return result\n',
      'tests/test_ops.py':
        'from calc.ops import add, mul\nfrom calc.report import total\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n',
      'tests/test_sandbox.py': [
        'import os',
        'import pathlib',
        '',
        '',
        'def test_the_service_environment_is_out_of_reach():',
        `    assert not any('${secret}' in v for v in os.environ.values())`,
        '    seen = []',
        "    for p in pathlib.Path('/proc').iterdir():",
        '        if p.name.isdigit():',
        '            try:',
        `                if b'${secret}' in (p / 'environ').read_bytes():`,
        '                    seen.append(p.name)',
        '            except OSError:',
        '                pass',
        '    assert seen == []',
        '',
        '',
        'def test_nothing_outside_the_copy_is_writable():',
        `    for target in [pathlib.Path(${JSON.stringify(work)}) / 'escaped.txt', pathlib.Path(${JSON.stringify(escapee)})]:`,
        '        try:',
        "            target.write_text('escaped')",
        '        except OSError:',
        '            continue',
        "        raise AssertionError(f'wrote {target}')",
        "    pathlib.Path('inside.txt').write_text('fine')",
        '',
      ].join('\n'),
    },
    root,
  );
}

describe('ticket jobs end to end: a Python repository with pytest', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  let dataDir: string;
  const scripts = new Map<string, TicketScript>();
  const fixed = 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n';
  const wrong = 'def add(a, b):\n    return a * b\n\n\ndef mul(a, b):\n    return a * b\n';
  let good = '';
  let failing = '';
  let stale = '';

  beforeAll(async () => {
    process.env.TESSERA_E2E_SECRET = secret;
    process.env.TESSERA_TICKETS_FORGE_TOKEN = token;
    fx = pythonRepo();
    forge = await new ForgeServer(token).start();
    forge.addRepo('acme/calc', fx.bare);
    provider = await startProviderServer();
    scriptProvider(provider, scripts);
    good = diffOf(fx.work, { 'calc/ops.py': fixed });
    failing = diffOf(fx.work, { 'calc/ops.py': wrong });
    // Written against a file that is not what the repository holds: it does not apply.
    stale = good.replace(' def add(a, b):\n-    return a - b', ' def add(x, y):\n-    return x - y');
    dataDir = path.join(tempDir(), 'data');
    t = await startAgent(
      {
        baseUrl: provider.baseUrl,
        reposRoot: fx.reposRoot,
        forge: { baseUrl: forge.url, tokenEnv: 'TESSERA_TICKETS_FORGE_TOKEN' },
        author: { name: 'Ticket Bot', email: 'tickets@example.com' },
        workspaces: { refreshSeconds: 0 },
      },
      { dataDir },
    );
    await configureProvider(t);
  });
  afterAll(async () => {
    await t?.stop();
    await forge?.stop();
    await provider?.close();
    delete process.env.TESSERA_E2E_SECRET;
    delete process.env.TESSERA_TICKETS_FORGE_TOKEN;
  });

  const headers = { authorization: 'Bearer <ACCESS_TOKEN>', 'x-tenant': 'default' };

  it('takes a ticket from the webhook to a pull request: a diff that does not apply, one that fails the tests, one that passes', async () => {
    scripts.set('PY-1', {
      triage: [{ actionable: true, role: 'backend-python', summary: 'add() subtracts its operands', files: ['calc/ops.py'], questions: [] }],
      patches: [stale, failing, good],
    });
    const base = git(fx.bare, 'rev-parse', 'refs/heads/main');
    const res = await t.call(
      'POST',
      '/api/v1/tickets/webhook',
      {
        ticket_id: 'PY-1',
        repo_name: 'acme/calc',
        title: 'add returns the wrong sum',
        description: 'calc.ops.add(2, 3) gives -1; the total report is wrong too.',
      },
      headers,
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, jobId: expect.stringMatching(/^job_/), state: expect.any(String), created: true });
    // The run may already have started by the time the webhook answers.
    expect(['queued', 'triaging']).toContain(res.body.state);
    const job = await waitForState(t, res.body.jobId, ['completed', 'failed']);
    expect(job.error).toBeUndefined();
    expect(statesOf(job)).toEqual(['queued', 'triaging', 'planning', 'patching', 'patching', 'testing', 'patching', 'testing', 'proposing', 'completed']);
    expect(job.role).toBe('backend-python');
    expect(job.triage).toMatchObject({ actionable: true, role: 'backend-python', roleSource: 'model', files: ['calc/ops.py'] });
    expect(job.attempts.map((a: any) => [a.n, a.tier, a.verified, a.tests?.passed ?? null])).toEqual([
      [1, 3, false, null],
      [2, 3, true, false],
      [3, 6, true, true],
    ]);
    expect(job.attempts[0].verifyError).toContain('does_not_apply');
    expect(job.attempts[1].tests.output).toMatch(/test_add|assert 6 == 5/);
    expect(job.attempts[2].tests).toMatchObject({ passed: true, exitCode: 0, command: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider'] });
    expect(job.attempts[2].tests.output).toMatch(/5 passed/);

    // The model saw why each attempt failed: the verifier's reason, then the failing trace.
    const patchCalls = provider.chats.filter(
      (c) => String(c.body.messages[1].content).includes('Ticket PY-1:') && !String(c.body.messages[0].content).includes('triage'),
    );
    expect(patchCalls).toHaveLength(3);
    expect(patchCalls[0]!.body.messages[1].content).toContain('--- file: calc/ops.py ---');
    expect(patchCalls[0]!.body.messages[1].content).toMatch(/callers and callees/i);
    expect(JSON.stringify(patchCalls[1]!.body.messages.at(-1))).toContain('was refused before any test ran');
    expect(JSON.stringify(patchCalls[2]!.body.messages.at(-1))).toContain('the tests failed');
    expect(JSON.stringify(patchCalls[2]!.body.messages.at(-1))).toContain('test_add');

    // Branch, commit, push and pull request.
    const branch = patchBranch(good, base);
    expect(job.branch).toBe(branch);
    expect(branch).toMatch(/^agent\/patch-[0-9a-f]{12}$/);
    expect(git(fx.bare, 'rev-parse', `refs/heads/${branch}`)).toBe(job.commit);
    expect(gitRaw(fx.bare, 'show', `${job.commit}:calc/ops.py`)).toBe(fixed);
    expect(git(fx.bare, 'log', '-1', '--format=%an <%ae>|%P|%s', job.commit)).toBe(`Ticket Bot <tickets@example.com>|${base}|add returns the wrong sum (PY-1)`);
    expect(git(fx.bare, 'rev-parse', 'refs/heads/main')).toBe(base);
    const pr = forge.pulls.find((p) => p.head === branch)!;
    expect(pr).toMatchObject({ title: 'add returns the wrong sum (PY-1)', base: 'main', state: 'open' });
    expect(pr.body).toContain('Automated fix for ticket **PY-1**');
    expect(pr.body).toContain('Agent: Backend Python engineer');
    expect(pr.body).toContain('Iterations: 3');
    expect(pr.body).toContain('`python3 -m pytest -q -p no:cacheprovider` passed in the sandbox');
    expect(job.pullRequest).toEqual({ number: pr.number, url: `${forge.url}/acme/calc/pull/${pr.number}` });
    expect(job.diff).toBe(good);
    expect(job.tests.passed).toBe(true);
    expect(job.costUsd).toBeGreaterThan(0);

    // The sandboxed tests could not reach the service's environment or write outside their copy.
    expect(existsSync(path.join(fx.work, 'escaped.txt'))).toBe(false);
    expect(existsSync(escapee)).toBe(false);
    expect(job.attempts[2].tests.output).not.toContain(secret);

    // Events of the contract.
    const states = await eventsOf(t, `kind=ticket.state&job=${job.id}`, 10);
    expect(states.map((e: any) => e.data.state)).toEqual(statesOf(job));
    expect(states[2].data).toEqual({ jobId: job.id, state: 'planning', previous: 'triaging', role: 'backend-python', note: 'Backend Python engineer (model)' });
    const [proposed] = await eventsOf(t, `kind=ticket.proposed&job=${job.id}`);
    expect(proposed.data).toMatchObject({
      jobId: job.id,
      ticket: { ticket_id: 'PY-1', repo_name: 'acme/calc', source: 'webhook' },
      repo: 'acme/calc',
      branch,
      commit: job.commit,
      pullRequest: job.pullRequest,
      diff: good,
      testsPassed: true,
      files: ['calc/ops.py'],
      additions: 1,
      deletions: 1,
    });
    expect((await eventsOf(t, `kind=ticket.completed&job=${job.id}`))[0].data).toMatchObject({ jobId: job.id, ticket: { ticket_id: 'PY-1' } });
  });

  it('answers the same job for a redelivered ticket, and lists it', async () => {
    const first = (await t.call('GET', '/api/v1/jobs')).body.jobs.find((j: any) => j.ticket.ticket_id === 'PY-1');
    const again = await t.call(
      'POST',
      '/api/v1/tickets/webhook',
      { ticket_id: 'PY-1', repo_name: 'acme/calc', title: 'add returns the wrong sum', description: 'again' },
      headers,
    );
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ ok: true, jobId: first.id, state: 'completed', created: false });
    expect(first).toEqual({
      id: first.id,
      state: 'completed',
      ticket: { ticket_id: 'PY-1', repo_name: 'acme/calc', title: 'add returns the wrong sum' },
      role: 'backend-python',
      tier: 6,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      costUsd: expect.any(Number),
      pullRequest: first.pullRequest,
    });
    const page = await t.call('GET', '/api/v1/jobs?state=completed&limit=1');
    expect(page.body.jobs.map((j: any) => j.id)).toContain(first.id);
  });

  it('answers 400 naming the field for a bad payload and 422 repository_unknown for an unknown repository', async () => {
    let r = await t.call('POST', '/api/v1/tickets/webhook', { ticket_id: 'X', repo_name: 'acme/calc', description: 'd' });
    expect([r.status, r.body.error.code, r.body.error.details.issues[0].path]).toEqual([400, 'validation_failed', 'body.title']);
    r = await t.call('POST', '/api/v1/tickets/webhook', { ticket_id: 'X', repo_name: 'not-a-repo', title: 't', description: 'd' });
    expect([r.status, r.body.error.details.issues[0].path]).toEqual([400, 'body.repo_name']);
    r = await t.call('POST', '/api/v1/tickets/webhook', { ticket_id: 'X', repo_name: 'acme/missing', title: 't', description: 'd' });
    expect([r.status, r.body.error.code]).toEqual([422, 'repository_unknown']);
    expect((await t.call('GET', '/api/v1/jobs/job_nope')).body.error.code).toBe('job_not_found');
  });

  it('keeps workspaces 0700 for the tenant, the user, the repository and its written-out trees', () => {
    const root = defaultWorkspacesDir(dataDir);
    const tenantDir = path.join(root, segment('default'));
    const userDir = path.join(tenantDir, segment('anonymous'));
    const repoDir = path.join(userDir, segment('acme/calc'));
    for (const dir of [root, tenantDir, userDir, repoDir, path.join(repoDir, 'trees')]) expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
  });

  it('fails into the dead-letter queue with the last diff and output when the iterations run out', async () => {
    scripts.set('PY-2', { triage: [{ actionable: true, role: 'backend-python', summary: 's' }], patches: [failing, stale] });
    const res = await t.call('POST', '/api/v1/agent/remediate', {
      repo: 'acme/calc',
      ticket: { ticket_id: 'PY-2', title: 'add is still wrong', description: 'add(2, 3) should be 5' },
      maxIterations: 2,
    });
    expect(res.status).toBe(202);
    const job = await waitForState(t, res.body.jobId, ['completed', 'failed']);
    expect(statesOf(job)).toEqual(['queued', 'triaging', 'planning', 'patching', 'testing', 'patching', 'failed']);
    expect(job.error).toEqual({ code: 'remediation_exhausted', message: expect.stringContaining('No patch passed after 2 iteration(s)') });
    const failed = await eventsOf(t, `kind=ticket.failed&job=${job.id}`);
    expect(failed[0].data).toMatchObject({ jobId: job.id, error: { code: 'remediation_exhausted' } });
    let record: any;
    for (let i = 0; i < 50 && !record; i++) {
      record = (await t.call('GET', '/api/v1/telemetry/dlq?limit=50')).body.records.find((x: any) => x.details?.ticketJobId === job.id);
      if (!record) await new Promise((r) => setTimeout(r, 100));
    }
    expect(record).toMatchObject({
      jobName: 'ticket',
      error: { code: 'remediation_exhausted' },
      details: {
        ticketJobId: job.id,
        ticketId: 'PY-2',
        repo: 'acme/calc',
        iterations: 2,
        lastDiff: stale,
        lastOutput: expect.stringContaining('does_not_apply'),
      },
    });
    expect(record.stack).toContain('No patch passed');
  });
  it('answers 422 remediation_exhausted with every attempt when a synchronous remediation runs out of iterations', async () => {
    scripts.set('SYNC-PY', { triage: [], patches: [stale, failing] });
    const res = await t.call('POST', '/api/v1/agent/remediate', { repo: 'acme/calc', instructions: 'SYNC-PY: add must add', maxIterations: 2 });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'remediation_exhausted', message: 'No patch passed after 2 iteration(s): the tests failed (exit code 1)' });
    expect(res.body.error.details).toMatchObject({ iterations: 2, lastDiff: failing, lastOutput: expect.stringContaining('test_add') });
    expect(res.body.error.details.attempts.map((a: any) => [a.n, a.verified, a.tests?.passed ?? null])).toEqual([
      [1, false, null],
      [2, true, false],
    ]);
  });
});
