import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForgeServer } from './forge-server.js';
import { makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { agentRuntime } from './playbooks-support.js';
import { startAgent, type AgentApp } from './support.js';

const defaults = {
  listener: { enabled: true, events: ['assigned', 'labeled'], labels: [], assignees: [], repositories: [] },
  autoComment: {
    enabled: true,
    states: ['triaging', 'awaiting_clarification', 'testing', 'completed', 'failed', 'cancelled'],
    pullRequest: true,
    mergeDecision: true,
  },
  autoMerge: {
    enabled: false,
    requireTestsPassed: true,
    requireApproval: true,
    maxChangedLines: 400,
    maxFiles: 20,
    protectedPaths: [
      '.github/**',
      '.gitlab-ci.yml',
      '.ci/**',
      '**/Dockerfile',
      '**/*.lock',
      '**/package-lock.json',
      '**/migrations/**',
      '**/*.pem',
      '**/*.key',
    ],
    requiredLabels: [],
    method: 'squash',
  },
  review: { model: 'task:code-review', post: true },
};

/** GitHub's `issues` event as GitHub sends it (trimmed to what a real delivery always has). */
const githubIssue = (action: string, extra: Record<string, unknown> = {}) => ({
  action,
  issue: {
    number: 7,
    title: 'Division by zero in calc.div',
    body: 'calc.div(1, 0) raises instead of returning None',
    html_url: 'https://github.example/acme/widget/issues/7',
    labels: [
      { id: 1, name: 'bug' },
      { id: 2, name: 'agent' },
    ],
    assignee: { login: 'tessera-bot', id: 9 },
    assignees: [{ login: 'tessera-bot', id: 9 }],
    state: 'open',
  },
  repository: { id: 1, full_name: 'acme/widget', name: 'widget', owner: { login: 'acme' } },
  sender: { login: 'alice' },
  ...extra,
});

describe('playbook configuration and the story webhook', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  beforeAll(async () => {
    fx = makeRepo('acme', 'widget', pythonProject);
    forge = await new ForgeServer().start();
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot, forge: { baseUrl: forge.url } });
  });
  afterAll(async () => {
    await t.stop();
    await forge.stop();
  });

  it('answers the documented defaults before anything is set', async () => {
    const { status, body } = await t.call('GET', '/api/v1/playbooks/config');
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      config: defaults,
      updatedAt: null,
      defaults: true,
      githubWebhook: { secretConfigured: false, path: '/api/v1/playbooks/github-webhook/default' },
    });
  });

  it('merges a partial change into the stored configuration, keeps it, and reports bad fields with their paths', async () => {
    const set = await t.call('POST', '/api/v1/playbooks/config', {
      listener: { labels: ['agent'], repositories: ['acme/*'] },
      autoMerge: { enabled: true, maxChangedLines: 50 },
    });
    expect(set.status).toBe(200);
    expect(set.body.config).toEqual({
      ...defaults,
      listener: { ...defaults.listener, labels: ['agent'], repositories: ['acme/*'] },
      autoMerge: { ...defaults.autoMerge, enabled: true, maxChangedLines: 50 },
    });
    expect(set.body.defaults).toBe(false);
    expect((await t.call('GET', '/api/v1/playbooks/config')).body.config).toEqual(set.body.config);
    const bad = await t.call('POST', '/api/v1/playbooks/config', {
      listener: { events: ['closed'] },
      autoMerge: { maxChangedLines: 0, protectedPaths: [''] },
      review: { colour: 'blue' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      'body.autoMerge.maxChangedLines',
      'body.autoMerge.protectedPaths[0]',
      'body.listener.events[0]',
      'body.review.colour',
    ]);
    expect((await t.call('GET', '/api/v1/playbooks/config')).body.config).toEqual(set.body.config);
    const reset = await t.call('POST', '/api/v1/playbooks/config', { reset: true, listener: { events: ['opened'] } });
    expect(reset.body.config).toEqual({ ...defaults, listener: { ...defaults.listener, events: ['opened'] } });
  });

  it("starts a ticket job for a matching GitHub issues event, once per issue, and ignores the others with the rule's reason", async () => {
    await t.call('POST', '/api/v1/playbooks/config', { reset: true, listener: { labels: ['agent'], assignees: ['tessera-bot'], repositories: ['acme/*'] } });
    const send = (body: unknown, event = 'issues') =>
      t.call('POST', '/api/v1/playbooks/story-webhook', body, { 'x-github-event': event, 'x-github-delivery': `d-${Math.random()}` });

    const started = await send(githubIssue('labeled', { label: { name: 'agent' } }));
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      ok: true,
      started: true,
      jobId: expect.stringMatching(/^job_/),
      state: 'queued',
      created: true,
      ticket: { ticket_id: 'acme/widget#7', repo_name: 'acme/widget', source: 'github', issue: 7 },
    });
    const job = agentRuntime(t).jobs.get(started.body.jobId)!;
    expect(job).toMatchObject({ name: 'ticket', tenant: 'default', key: 'ticket:acme/widget#7' });
    // The same intake as the ticket webhook: a ticket record the jobs API answers, from its first state.
    const record = (await t.call('GET', `/api/v1/jobs/${started.body.jobId}`)).body.job;
    expect(record).toMatchObject({ id: started.body.jobId, ticket: { ticket_id: 'acme/widget#7', repo_name: 'acme/widget', source: 'story' } });
    expect(record.timeline[0].state).toBe('queued');
    expect(job.input).toEqual({
      ticket: {
        ticket_id: 'acme/widget#7',
        repo_name: 'acme/widget',
        title: 'Division by zero in calc.div',
        description: 'calc.div(1, 0) raises instead of returning None',
        labels: ['bug', 'agent'],
        source: 'story',
        url: 'https://github.example/acme/widget/issues/7',
      },
    });

    const again = await send(githubIssue('assigned', { assignee: { login: 'tessera-bot' } }));
    expect([again.status, again.body.jobId, again.body.created]).toEqual([202, started.body.jobId, false]);

    const ignored = async (body: unknown, reason: string, event = 'issues') => {
      const r = await send(body, event);
      expect([r.status, r.body.ok, r.body.started, r.body.reason]).toEqual([200, true, false, reason]);
      return r.body;
    };
    await ignored(githubIssue('closed'), 'event_not_listened');
    await ignored(githubIssue('labeled', { label: { name: 'bug' } }), 'label_not_matched');
    await ignored(githubIssue('assigned', { assignee: { login: 'bob' } }), 'assignee_not_matched');
    await ignored({ ...githubIssue('labeled', { label: { name: 'agent' } }), repository: { full_name: 'other/widget' } }, 'repository_not_listened');
    expect(await ignored({ zen: 'Keep it logically awesome.' }, 'ping', 'ping')).toMatchObject({ message: 'GitHub ping acknowledged' });
    await ignored({ action: 'created' }, 'event_not_listened', 'issue_comment');
    expect(agentRuntime(t).jobs.list({ name: 'ticket' }).jobs).toHaveLength(1);
  });

  it('takes the generic story shape, refuses a malformed one with the field, and an unknown repository with 422', async () => {
    await t.call('POST', '/api/v1/playbooks/config', { reset: true });
    const story = {
      event: 'assigned',
      assignee: 'tessera-bot',
      story: { id: 'PROJ-42', repo: 'acme/widget', title: 'Add mod()', description: 'calc.mod(a, b)', labels: ['feature'], issue: 3 },
    };
    const r = await t.call('POST', '/api/v1/playbooks/story-webhook', story);
    expect(r.status).toBe(202);
    expect(r.body.ticket).toEqual({ ticket_id: 'PROJ-42', repo_name: 'acme/widget', source: 'story', issue: 3 });
    expect(agentRuntime(t).jobs.get(r.body.jobId)!.input).toEqual({
      ticket: { ticket_id: 'PROJ-42', repo_name: 'acme/widget', title: 'Add mod()', description: 'calc.mod(a, b)', labels: ['feature'], source: 'story' },
    });
    const bad = await t.call('POST', '/api/v1/playbooks/story-webhook', { event: 'assigned', story: { id: 'X-1', title: 'no repo' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).toEqual(['body.story.repo']);
    const unknown = await t.call('POST', '/api/v1/playbooks/story-webhook', { event: 'assigned', story: { id: 'X-2', repo: 'acme/nothing', title: 'x' } });
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'repository_unknown']);
    const off = await t.call('POST', '/api/v1/playbooks/config', { listener: { enabled: false } });
    expect(off.status).toBe(200);
    const disabled = await t.call('POST', '/api/v1/playbooks/story-webhook', { ...story, story: { ...story.story, id: 'PROJ-43' } });
    expect([disabled.status, disabled.body.reason]).toEqual([200, 'listener_disabled']);
  });

  it("takes GitHub's deliveries without a key when X-Hub-Signature-256 signs the body with the tenant's secret", async () => {
    await t.call('POST', '/api/v1/playbooks/config', { reset: true, listener: { events: ['opened'] } });
    const raw = JSON.stringify({ ...githubIssue('opened'), issue: { ...githubIssue('opened').issue, number: 11 } });
    const deliver = (signature: string | undefined, event = 'issues') =>
      fetch(`${t.base}/api/v1/playbooks/github-webhook/default`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': event, ...(signature ? { 'x-hub-signature-256': signature } : {}) },
        body: raw,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const sign = (secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

    const unset = await deliver(sign('anything-at-all-123'));
    expect([unset.status, unset.body.error.code, unset.body.error.message]).toEqual([
      401,
      'webhook_signature_invalid',
      'The webhook delivery is not signed by the tenant: the tenant has no GitHub webhook secret.',
    ]);
    const set = await t.call('POST', '/api/v1/playbooks/config', { githubWebhookSecret: 'whsec-0123456789abcdef' });
    expect(set.body.githubWebhook).toEqual({ secretConfigured: true, path: '/api/v1/playbooks/github-webhook/default' });
    expect(JSON.stringify(set.body)).not.toContain('whsec');
    expect((await deliver(undefined)).body.error.details).toEqual({ reason: 'X-Hub-Signature-256 is missing' });
    expect((await deliver(sign('whsec-wrong-secret-000'))).body.error.details).toEqual({ reason: 'the signature does not match' });
    const ok = await deliver(sign('whsec-0123456789abcdef'));
    expect(ok.status).toBe(202);
    expect(ok.body.ticket).toEqual({ ticket_id: 'acme/widget#11', repo_name: 'acme/widget', source: 'github', issue: 11 });
    const ping = await deliver(sign('whsec-0123456789abcdef'), 'ping');
    expect([ping.status, ping.body.reason]).toEqual([200, 'ping']);
    await t.call('POST', '/api/v1/playbooks/config', { githubWebhookSecret: null });
    expect((await deliver(sign('whsec-0123456789abcdef'))).status).toBe(401);
  });
});
