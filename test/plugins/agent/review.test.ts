import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForgeServer } from './forge-server.js';
import { git, gitRaw, makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { startAgent, type AgentApp } from './support.js';

describe('POST /api/v1/playbooks/review-pr', () => {
  let t: AgentApp;
  let fx: Fixture;
  let forge: ForgeServer;
  const diffOf = (change: () => void) => {
    change();
    git(fx.work, 'add', '-A');
    const d = gitRaw(fx.work, 'diff', '--cached');
    git(fx.work, 'reset', '-q', '--hard', 'HEAD');
    return d;
  };
  const write = (file: string, text: string) => writeFileSync(path.join(fx.work, file), text);

  beforeAll(async () => {
    fx = makeRepo('acme', 'review', pythonProject);
    forge = await new ForgeServer().start();
    forge.addRepo('acme/review', fx.bare);
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot, forge: { baseUrl: forge.url }, workspaces: { refreshSeconds: 0 } });
  });
  afterAll(async () => {
    await t.stop();
    await forge.stop();
  });

  it('approves a change that touches code and its tests with no finding, with model null when no provider is configured', async () => {
    const diff = diffOf(() => {
      write('calc/ops.py', pythonProject['calc/ops.py']!.replace('return a * b', 'return b * a'));
      write('tests/test_ops.py', pythonProject['tests/test_ops.py']! + '\n\ndef test_mul():\n    assert 6 == 6\n');
    });
    const { status, body } = await t.call('POST', '/api/v1/playbooks/review-pr', { repo: 'acme/review', diff });
    expect(status).toBe(200);
    expect(body).toEqual({
      ok: true,
      verdict: 'approve',
      summary: 'approve (score 100): 2 file(s) changed; findings: 0 high, 0 medium, 0 low.',
      score: 100,
      findings: [],
      files: ['calc/ops.py', 'tests/test_ops.py'],
      baseCommit: git(fx.bare, 'rev-parse', 'refs/heads/main'),
      model: null,
      modelReview: null,
      note: null,
      posted: null,
    });
  });

  it('requests changes for a secret and a dangerous call in added lines, and notes that no test changed', async () => {
    const diff = diffOf(() =>
      write(
        'calc/ops.py',
        pythonProject['calc/ops.py']!.replace(
          'def mul(a, b):\n    return a * b',
          'AWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n\n\ndef mul(a, b):\n    return eval(f"{a} * {b}")',
        ),
      ),
    );
    const { body } = await t.call('POST', '/api/v1/playbooks/review-pr', { repo: 'acme/review', diff });
    expect(body.verdict).toBe('request_changes');
    expect(body.score).toBe(100 - 30 - 30 - 5);
    expect(body.findings).toEqual([
      {
        file: 'calc/ops.py',
        line: 9,
        severity: 'high',
        category: 'security',
        rule: 'secret.aws-access-key',
        message: 'an AWS access key id is added in the diff',
      },
      { file: 'calc/ops.py', line: 13, severity: 'high', category: 'security', rule: 'dangerous.eval', message: 'eval() runs arbitrary code' },
      { file: null, line: null, severity: 'low', category: 'tests', rule: 'tests.untouched', message: '1 source file(s) changed and no test did' },
    ]);
  });

  it('finds new syntax errors with tree-sitter', async () => {
    const diff = diffOf(() => write('web/app.ts', pythonProject['web/app.ts']!.replace('return helper(this.name);', 'return helper(this.name;')));
    const { body } = await t.call('POST', '/api/v1/playbooks/review-pr', { repo: 'acme/review', diff });
    expect(body.verdict).toBe('request_changes');
    expect(body.findings[0]).toMatchObject({ file: 'web/app.ts', severity: 'high', category: 'correctness', rule: 'syntax', line: expect.any(Number) });
  });

  it('reviews a pull request by number from the forge and posts the review there', async () => {
    git(fx.work, 'checkout', '-q', '-b', 'feature/shell');
    write('calc/run.py', 'import os\n\n\ndef run(cmd):\n    return os.system(cmd)\n');
    git(fx.work, 'add', '-A');
    git(fx.work, 'commit', '-qm', 'run commands');
    git(fx.work, 'push', '-q', 'origin', 'feature/shell');
    git(fx.work, 'checkout', '-q', 'main');
    const res = await fetch(`${forge.url}/repos/acme/review/pulls`, {
      method: 'POST',
      body: JSON.stringify({ title: 'Shell', head: 'feature/shell', base: 'main', body: '' }),
    });
    const pr = (await res.json()) as { number: number };
    const { status, body } = await t.call('POST', '/api/v1/playbooks/review-pr', { repo: 'acme/review', pullNumber: pr.number, post: true });
    expect(status).toBe(200);
    expect(body.files).toEqual(['calc/run.py']);
    expect(body.findings.map((f: { rule: string; line: number | null }) => [f.rule, f.line])).toEqual([
      ['dangerous.os-system', 5],
      ['tests.untouched', null],
    ]);
    expect(body.verdict).toBe('request_changes');
    expect(body.posted).toEqual({ reviewId: forge.reviews[0]!.id });
    expect(forge.reviews[0]).toMatchObject({ pull: pr.number, event: 'REQUEST_CHANGES' });
    expect(forge.reviews[0]!.body).toContain('`calc/run.py:5`: os.system/os.popen run a shell command');
    const missing = await t.call('POST', '/api/v1/playbooks/review-pr', { repo: 'acme/review', pullNumber: 999 });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'pull_request_not_found']);
  });

  it('refuses a body with both or neither of pullNumber and diff', async () => {
    for (const b of [{ repo: 'acme/review' }, { repo: 'acme/review', diff: 'x', pullNumber: 1 }]) {
      const r = await t.call('POST', '/api/v1/playbooks/review-pr', b);
      expect(r.status).toBe(400);
    }
  });
});
