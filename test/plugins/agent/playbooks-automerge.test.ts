import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForgeServer } from './forge-server.js';
import { git, gitRaw, makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { agentRuntime, until } from './playbooks-support.js';
import { startProviderServer, type ChatScript, type ModelListServer } from './provider-server.js';
import { eventsOf, startAgent, type AgentApp } from './support.js';

describe('auto-merge of proposed pull requests and progress comments', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  const answers: ChatScript[] = [];

  /** A branch pushed to the forge's bare repository with `files` changed, and its pull request; what the ticket pipeline would have made. */
  async function propose(branch: string, files: Record<string, string>, jobId: string, extra: Record<string, unknown> = {}) {
    git(fx.work, 'checkout', '-q', '-b', branch, 'main');
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(fx.work, file)), { recursive: true });
      writeFileSync(path.join(fx.work, file), text);
    }
    git(fx.work, 'add', '-A');
    git(fx.work, 'commit', '-q', '-m', `fix for ${jobId}`);
    git(fx.work, 'push', '-q', 'origin', branch);
    const diff = gitRaw(fx.work, 'diff', `main...${branch}`);
    const stat = gitRaw(fx.work, 'diff', '--numstat', `main...${branch}`)
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    const commit = git(fx.work, 'rev-parse', 'HEAD');
    git(fx.work, 'checkout', '-q', 'main');
    const res = await fetch(`${forge.url}/repos/acme/widget/pulls`, {
      method: 'POST',
      body: JSON.stringify({ title: `Fix ${jobId}`, head: branch, base: 'main', body: 'by the agent' }),
    });
    const pr = (await res.json()) as { number: number; html_url: string };
    const event = {
      jobId,
      ticket: { ticket_id: 'acme/widget#7', repo_name: 'acme/widget', title: 'Division by zero in calc.div', description: '', labels: ['agent'] },
      repo: 'acme/widget',
      branch,
      commit,
      pullRequest: { number: pr.number, url: pr.html_url },
      diff,
      testsPassed: true,
      files: stat.map((s) => s[2]!),
      additions: stat.reduce((n, s) => n + Number(s[0]), 0),
      deletions: stat.reduce((n, s) => n + Number(s[1]), 0),
      ...extra,
    };
    await agentRuntime(t).events.append('ticket.proposed', event, { tenant: 'default', subject: jobId });
    return event;
  }

  // A decision takes well under a second; the wait stays below the test's own timeout so a missing
  // decision fails here, by name, rather than as a test timeout.
  const decisionOf = async (jobId: string) =>
    (await until(async () => (await eventsOf(t, `kind=playbooks.merge_decision&job=${jobId}`, 1, 50))[0], 20_000))!.data;

  const fixed = {
    'calc/ops.py': pythonProject['calc/ops.py']! + '\n\ndef div(a, b):\n    return None if b == 0 else a / b\n',
    'tests/test_ops.py': pythonProject['tests/test_ops.py']! + '\n\ndef test_div_by_zero():\n    from calc.ops import div\n    assert div(1, 0) is None\n',
  };

  beforeAll(async () => {
    fx = makeRepo('acme', 'widget', pythonProject);
    forge = await new ForgeServer().start();
    forge.addRepo('acme/widget', fx.bare);
    provider = await startProviderServer();
    provider.defaultAnswer = () => answers.shift() ?? { fail: 500 };
    t = await startAgent({
      baseUrl: 'http://127.0.0.1:9/api/v1',
      allowPrivateAddresses: true,
      reposRoot: fx.reposRoot,
      forge: { baseUrl: forge.url },
      workspaces: { refreshSeconds: 0 },
    });
    // Progress comments on `testing` only: the story's real ticket job fails at triage (no provider key is
    // configured), and its own `triaging`/`failed` comments would interleave with the events appended here.
    await t.call('POST', '/api/v1/playbooks/config', { autoMerge: { enabled: true, requiredLabels: ['agent'] }, autoComment: { states: ['testing'] } });
  });
  afterAll(async () => {
    await t.stop();
    await forge.stop();
    await provider.close();
  });

  it('posts progress on the ticket, then reviews, approves and merges a proposal that meets every criterion, and says so on the ticket and the pull request', async () => {
    const started = await t.call(
      'POST',
      '/api/v1/playbooks/story-webhook',
      {
        action: 'labeled',
        label: { name: 'agent' },
        issue: { number: 7, title: 'Division by zero in calc.div', body: 'raise', labels: [{ name: 'agent' }] },
        repository: { full_name: 'acme/widget' },
      },
      { 'x-github-event': 'issues' },
    );
    expect(started.status).toBe(202);
    const jobId = started.body.jobId as string;
    // The real pipeline holds the job's record (it fails at triage: no provider key is configured).
    expect((await t.call('GET', `/api/v1/jobs/${jobId}`)).body.job).toMatchObject({ id: jobId, ticket: { ticket_id: 'acme/widget#7', source: 'story' } });
    await agentRuntime(t).events.append(
      'ticket.state',
      { jobId, state: 'testing', previous: 'patching', note: 'running pytest' },
      { tenant: 'default', subject: jobId },
    );
    await agentRuntime(t).events.append('ticket.state', { jobId, state: 'planning', previous: 'triaging' }, { tenant: 'default', subject: jobId });
    await until(() => (forge.comments.length >= 1 ? true : undefined));
    expect(forge.comments[0]).toMatchObject({ repo: 'widget', issue: 7, body: `Tessera agent: job \`${jobId}\` is now **testing**: running pytest.` });

    const mainBefore = git(fx.bare, 'rev-parse', 'main');
    const event = await propose('agent/patch-0a1b2c3d4e5f', fixed, jobId);
    const decision = await decisionOf(jobId);
    expect(decision).toEqual({
      jobId,
      repo: 'acme/widget',
      pullRequest: event.pullRequest,
      merged: true,
      sha: git(fx.bare, 'rev-parse', 'main'),
      verdict: 'approve',
      reviewModel: null,
      blockers: [],
      decidedAt: expect.any(String),
    });
    expect(decision.sha).not.toBe(mainBefore);
    // A squash merge: one parent, the tree of the proposal's commit.
    expect(git(fx.bare, 'rev-parse', `${decision.sha}^@`)).toBe(mainBefore);
    expect(git(fx.bare, 'rev-parse', `${decision.sha}^{tree}`)).toBe(git(fx.bare, 'rev-parse', `${event.commit}^{tree}`));
    expect(forge.pulls.find((p) => p.number === event.pullRequest.number)).toMatchObject({ state: 'closed', merged: true });
    expect(forge.reviews.at(-1)).toMatchObject({ pull: event.pullRequest.number, event: 'APPROVE' });
    expect(forge.requests.find((r) => r.method === 'PUT')).toMatchObject({
      path: `/repos/acme/widget/pulls/${event.pullRequest.number}/merge`,
      body: { merge_method: 'squash', commit_title: `Division by zero in calc.div (#${event.pullRequest.number})` },
    });
    await until(() => (forge.comments.length >= 4 ? true : undefined));
    const comments = forge.comments.map((c) => [c.issue, c.body.split('\n')[0]]);
    expect(comments).toEqual([
      [7, `Tessera agent: job \`${jobId}\` is now **testing**: running pytest.`],
      [7, `Tessera agent opened pull request #${event.pullRequest.number} for this ticket: ${event.pullRequest.url}`],
      [
        event.pullRequest.number,
        `Tessera merged pull request #${event.pullRequest.number} automatically (squash, ${decision.sha}): tests passed, review verdict "approve", every auto-merge criterion held.`,
      ],
      [
        7,
        `Tessera merged pull request #${event.pullRequest.number} automatically (squash, ${decision.sha}): tests passed, review verdict "approve", every auto-merge criterion held.`,
      ],
    ]);
  });

  it('never merges a protected path, and comments every reason on the pull request', async () => {
    const before = forge.comments.length;
    const mainBefore = git(fx.bare, 'rev-parse', 'main');
    const event = await propose('agent/patch-1f2e3d4c5b6a', { ...fixed, '.github/workflows/ci.yml': 'on: push\njobs: {}\n' }, 'job_protected', {
      testsPassed: false,
      ticket: { ticket_id: 'PROJ-9', repo_name: 'acme/widget', title: 'CI', description: '' },
    });
    const decision = await decisionOf('job_protected');
    expect(decision).toMatchObject({ merged: false, sha: null, verdict: 'approve' });
    expect(decision.blockers).toEqual([
      { criterion: 'tests_passed', message: "the repository's tests did not pass" },
      { criterion: 'protected_path', message: '`.github/workflows/ci.yml` is a protected path (`.github/**`) and is never merged automatically' },
      { criterion: 'required_labels', message: 'the ticket lacks the required label(s) agent' },
    ]);
    expect(git(fx.bare, 'rev-parse', 'main')).toBe(mainBefore);
    expect(forge.pulls.find((p) => p.number === event.pullRequest.number)).toMatchObject({ state: 'open', merged: false });
    await until(() => (forge.comments.length > before ? true : undefined));
    // PROJ-9 came from no story with an issue: the decision goes on the pull request only.
    expect(forge.comments.slice(before)).toEqual([
      {
        id: expect.any(Number),
        owner: 'acme',
        repo: 'widget',
        issue: event.pullRequest.number,
        body: [
          `Tessera did not merge pull request #${event.pullRequest.number} automatically; it waits for a human review:`,
          "- the repository's tests did not pass",
          '- `.github/workflows/ci.yml` is a protected path (`.github/**`) and is never merged automatically',
          '- the ticket lacks the required label(s) agent',
        ].join('\n'),
      },
    ]);
  });

  it('decides each job once, and leaves proposals alone while auto-merge is disabled', async () => {
    const { events } = agentRuntime(t);
    const first = (await eventsOf(t, 'kind=playbooks.merge_decision&job=job_protected'))[0];
    await events.append('ticket.proposed', first.data, { tenant: 'default', subject: 'job_protected' });
    await t.call('POST', '/api/v1/playbooks/config', { autoMerge: { enabled: false } });
    const event = await propose('agent/patch-2a2a2a2a2a2a', { 'README.md': '# calc\n\nA calculator.\n' }, 'job_disabled');
    expect((await decisionOf('job_disabled')).blockers).toEqual([{ criterion: 'disabled', message: 'auto-merge is disabled in the playbook configuration' }]);
    // The runner handles the log in order: job_disabled's decision means the repeated proposal before it was handled too.
    expect(await eventsOf(t, 'kind=playbooks.merge_decision&job=job_protected', 1, 0)).toHaveLength(1);
    expect(forge.pulls.find((p) => p.number === event.pullRequest.number)).toMatchObject({ state: 'open' });
  });

  it("lets the model's review keep a pull request from merging, and merges one the model approves", async () => {
    const set = await t.call('POST', '/api/v1/models/config', { baseUrl: provider.baseUrl });
    expect(set.status).toBe(200);
    await t.call('POST', '/api/v1/playbooks/config', { autoMerge: { enabled: true, requiredLabels: [] } });
    const blocked = { verdict: 'request_changes', summary: 'div swallows the error.', findings: [] };
    answers.push({ content: JSON.stringify(blocked) });
    const first = await propose('agent/patch-3b3b3b3b3b3b', fixed, 'job_model_blocks');
    const no = await decisionOf('job_model_blocks');
    const asked = provider.chats.at(-1)!.model;
    expect(no).toMatchObject({ merged: false, verdict: 'request_changes', reviewModel: asked });
    expect(no.blockers).toEqual([{ criterion: 'review_verdict', message: 'the review\'s verdict is "request_changes", not "approve"' }]);
    expect(forge.reviews.at(-1)).toMatchObject({ pull: first.pullRequest.number, event: 'REQUEST_CHANGES' });
    expect(forge.reviews.at(-1)!.body).toContain(`deterministic checks and ${asked}`);

    answers.push({ content: JSON.stringify({ verdict: 'approve', summary: 'Correct and tested.', findings: [] }) });
    const second = await propose('agent/patch-4c4c4c4c4c4c', { 'README.md': '# calc\n\nDivision too.\n' }, 'job_model_approves');
    const yes = await decisionOf('job_model_approves');
    expect(yes).toMatchObject({ merged: true, verdict: 'approve', reviewModel: asked, blockers: [] });
    expect(forge.pulls.find((p) => p.number === second.pullRequest.number)).toMatchObject({ merged: true });
  });
  it('records a proposal without a pull request (no forge: the branch was pushed) as not merged, without a review', async () => {
    const reviews = forge.reviews.length;
    const chats = provider.chats.length;
    const event = {
      jobId: 'job_no_forge',
      ticket: { ticket_id: 'T-9', repo_name: 'acme/widget', title: 'Division by zero', description: '' },
      repo: 'acme/widget',
      branch: 'agent/patch-5d5d5d5d5d5d',
      commit: git(fx.work, 'rev-parse', 'HEAD'),
      pullRequest: null,
      diff: '',
      testsPassed: true,
      files: ['calc/ops.py'],
      additions: 1,
      deletions: 0,
    };
    await agentRuntime(t).events.append('ticket.proposed', event, { tenant: 'default', subject: 'job_no_forge' });
    expect(await decisionOf('job_no_forge')).toMatchObject({
      jobId: 'job_no_forge',
      pullRequest: null,
      merged: false,
      verdict: null,
      blockers: [
        { criterion: 'no_pull_request', message: 'no forge is configured: branch agent/patch-5d5d5d5d5d5d was pushed and no pull request was opened' },
      ],
    });
    expect(forge.reviews.length).toBe(reviews);
    expect(provider.chats.length).toBe(chats);
  });
});
