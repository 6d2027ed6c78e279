import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ForgeServer } from './forge-server.js';
import { git, gitRaw, makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { startProviderServer, type ChatScript, type ModelListServer } from './provider-server.js';
import { startAgent, type AgentApp } from './support.js';

describe('the review agent with a model provider', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  let provider: ModelListServer;
  let answers: ChatScript[];
  let diff: string;

  const finding = { file: 'calc/ops.py', line: 28, severity: 'medium', category: 'correctness', message: 'div(1, 0) returns None but callers expect a number' };
  const review = (extra: Record<string, unknown> = {}) => t.call('POST', '/api/v1/playbooks/review-pr', { repo: 'acme/review', diff, ...extra });

  beforeAll(async () => {
    fx = makeRepo('acme', 'review', pythonProject);
    forge = await new ForgeServer().start();
    forge.addRepo('acme/review', fx.bare);
    provider = await startProviderServer();
    provider.defaultAnswer = () => answers.shift() ?? { fail: 500 };
    t = await startAgent({ baseUrl: provider.baseUrl, reposRoot: fx.reposRoot, forge: { baseUrl: forge.url }, workspaces: { refreshSeconds: 0 } });
    const key = await t.call('POST', '/api/v1/models/config', { apiKey: 'sk-test-review-0000000000001234' });
    expect(key.status).toBe(200);
    writeFileSync(path.join(fx.work, 'calc/ops.py'), pythonProject['calc/ops.py']! + '\n\ndef div(a, b):\n    return None if b == 0 else a / b\n');
    writeFileSync(path.join(fx.work, 'tests/test_ops.py'), pythonProject['tests/test_ops.py']! + '\n\ndef test_div():\n    assert True\n');
    git(fx.work, 'add', '-A');
    diff = gitRaw(fx.work, 'diff', '--cached');
    git(fx.work, 'reset', '-q', '--hard', 'HEAD');
  });
  beforeEach(() => {
    provider.chats.length = 0;
  });
  afterAll(async () => {
    await t.stop();
    await provider.close();
    await forge.stop();
  });

  it("merges the model's structured findings with the deterministic ones; the stricter verdict wins and `model` names the model", async () => {
    answers = [
      {
        content: JSON.stringify({ verdict: 'comment', summary: 'div hides a division by zero.', findings: [finding] }),
        usage: { prompt: 1000, completion: 100 },
      },
    ];
    const { status, body } = await review();
    expect(status).toBe(200);
    expect(provider.chats).toHaveLength(1);
    const [chat] = provider.chats;
    expect(body).toEqual({
      ok: true,
      verdict: 'comment',
      summary: `comment (score 85): 2 file(s) changed; findings: 0 high, 1 medium, 0 low. ${chat!.model}: div hides a division by zero.`,
      score: 85,
      findings: [{ ...finding, rule: 'model' }],
      files: ['calc/ops.py', 'tests/test_ops.py'],
      baseCommit: git(fx.bare, 'rev-parse', 'main'),
      model: chat!.model,
      modelReview: { tier: 6, calls: 1, costUsd: expect.any(Number), verdict: 'comment' },
      note: null,
      posted: null,
    });
    expect(body.modelReview.costUsd).toBeGreaterThan(0);
    // The default model is the playbook's review model, `task:code-review` (tier 6), asked for JSON with the diff in the prompt.
    expect(chat!.body.response_format).toEqual({ type: 'json_object' });
    expect(chat!.body.messages[0].content).toContain('Answer with ONE JSON object');
    expect(chat!.body.messages[1].content).toContain('+def div(a, b):');
  });

  it('sends an invalid answer back once with the reason, and takes the second (fenced) answer', async () => {
    answers = [{ content: 'Looks good to me!' }, { content: '```json\n' + JSON.stringify({ verdict: 'approve', summary: 'Fine.', findings: [] }) + '\n```' }];
    const { body } = await review({ model: 'tier:5' });
    expect(provider.chats).toHaveLength(2);
    expect(provider.chats[1]!.body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'Looks good to me!' },
      {
        role: 'user',
        content: expect.stringMatching(
          /^That answer cannot be used: the answer is not JSON \(.+\)\. Answer again with only the JSON object of the asked shape\.$/,
        ),
      },
    ]);
    expect(body).toMatchObject({ verdict: 'approve', score: 100, findings: [], model: provider.chats[1]!.model, note: null });
    expect(body.modelReview).toMatchObject({ tier: 5, calls: 2, verdict: 'approve' });
  });

  it('falls back to the deterministic checks with a note after two unusable answers, or when the model call fails', async () => {
    answers = [{ content: '{"verdict": "ship it"}' }, { content: '{"verdict": "approve", "summary": "ok"}' }];
    const twice = await review();
    expect(twice.body).toMatchObject({ verdict: 'approve', score: 100, findings: [], model: null });
    expect(twice.body.modelReview).toMatchObject({ tier: 6, calls: 2, verdict: null });
    expect(twice.body.note).toBe(
      'the model answered twice without a usable review (the answer does not have the asked shape: findings: Invalid input: expected array, received undefined); the verdict is from the deterministic checks alone',
    );
    answers = [];
    const failed = await review({ model: 'tier:2' });
    expect(failed.body).toMatchObject({ verdict: 'approve', model: null });
    expect(failed.body.note).toMatch(/^the model review failed \(.+\); the verdict is from the deterministic checks alone$/);
  });

  it('posts the merged review on the pull request with the model named', async () => {
    git(fx.work, 'checkout', '-q', '-b', 'feature/div');
    writeFileSync(path.join(fx.work, 'calc/ops.py'), pythonProject['calc/ops.py']! + '\n\ndef div(a, b):\n    return None if b == 0 else a / b\n');
    git(fx.work, 'commit', '-qam', 'div');
    git(fx.work, 'push', '-q', 'origin', 'feature/div');
    git(fx.work, 'checkout', '-q', 'main');
    const pr = (await (
      await fetch(`${forge.url}/repos/acme/review/pulls`, {
        method: 'POST',
        body: JSON.stringify({ title: 'div', head: 'feature/div', base: 'main', body: '' }),
      })
    ).json()) as { number: number };
    answers = [{ content: JSON.stringify({ verdict: 'request_changes', summary: 'Unsafe.', findings: [{ ...finding, severity: 'high' }] }) }];
    const { body } = await review({ diff: undefined, pullNumber: pr.number, post: true });
    expect(body.verdict).toBe('request_changes');
    expect(body.findings.map((f: { rule: string }) => f.rule)).toEqual(['tests.untouched', 'model']);
    expect(forge.reviews.at(-1)).toEqual({
      id: body.posted.reviewId,
      pull: pr.number,
      event: 'REQUEST_CHANGES',
      body: [
        `Tessera review (deterministic checks and ${body.model}): ${body.summary}`,
        '',
        '- **low** tests: 1 source file(s) changed and no test did',
        '- **high** correctness `calc/ops.py:28`: div(1, 0) returns None but callers expect a number',
      ].join('\n'),
    });
  });
});
