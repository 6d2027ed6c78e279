import { simpleGit } from 'simple-git';
import { describe, expect, it } from 'vitest';
import { keywordsOf } from '../../../plugins/agent/jobs/grounding.js';
import { verifyDiff } from '../../../plugins/agent/jobs/loop.js';
import { extractDiff, parseJsonObject } from '../../../plugins/agent/jobs/model.js';
import { normaliseQuestions } from '../../../plugins/agent/jobs/triage.js';
import type { Checkout } from '../../../plugins/agent/repos/repositories.js';
import { chooseRole, roles, tierOf } from '../../../plugins/agent/roles/roles.js';
import { git, makeRepo } from './git-fixture.js';
import { diffOf } from './ticket-support.js';

describe('specialised roles', () => {
  it('chooses the security auditor, the architect, then by the language of the files', () => {
    const t = (title: string, description = '', labels?: string[]) => ({ title, description, ...(labels ? { labels } : {}) });
    expect(chooseRole(t('SQL injection in the search endpoint'), ['web/app.ts'])).toBe('security-auditor');
    expect(chooseRole(t('Wrong total', 'see report'), ['calc/ops.py'])).toBe('backend-python');
    expect(chooseRole(t('Wrong total', '', ['security']), ['calc/ops.py'])).toBe('security-auditor');
    expect(chooseRole(t('Refactor the storage layer across modules'), ['a/x.py'])).toBe('frontier-architecture');
    expect(chooseRole(t('Race condition when two workers write'), ['a/x.ts'])).toBe('frontier-architecture');
    expect(chooseRole(t('Slug has punctuation'), ['lib/slug.mjs', 'lib/page.mjs', 'tools/x.py'])).toBe('frontend-ui');
    expect(chooseRole(t('The button label is cut'), [])).toBe('frontend-ui');
    expect(chooseRole(t('The sum is wrong'), [])).toBe('backend-python');
  });

  it('escalates along the ladder of each role, shifted by a requested start tier', () => {
    expect([1, 2, 3, 4, 5].map((n) => tierOf(roles['backend-python'], n))).toEqual([3, 3, 6, 7, 7]);
    expect([1, 2, 3].map((n) => tierOf(roles['security-auditor'], n))).toEqual([6, 7, 8]);
    expect([1, 2, 3, 4].map((n) => tierOf(roles['backend-python'], n, 5))).toEqual([5, 5, 8, 9]);
    expect(tierOf(roles['frontier-architecture'], 3, 9)).toBe(10);
    for (const role of Object.values(roles)) expect(role.tools).toEqual(expect.arrayContaining(['code-graph', 'tests', 'syntax-check']));
  });

  it("refuses a security auditor's diff that adds a dangerous call, and lets other roles' through to the tests", async () => {
    const fx = makeRepo('acme', 'sec', { 'app/run.py': 'def run(cmd):\n    return cmd\n' });
    const diff = diffOf(fx.work, { 'app/run.py': 'import os\n\n\ndef run(cmd):\n    return os.system(cmd)\n' });
    const c = { dir: fx.work, git: simpleGit(fx.work), gitConfig: [] } as unknown as Checkout;
    const head = git(fx.work, 'rev-parse', 'HEAD');
    const audited = await verifyDiff(c, head, diff, roles['security-auditor']);
    expect(audited).toEqual({ error: expect.stringContaining('dangerous.os-system') });
    const plain = await verifyDiff(c, head, diff, roles['backend-python']);
    expect('files' in plain && plain.files.map((f) => f.path)).toEqual(['app/run.py']);
    expect(await verifyDiff(c, head, '', roles['backend-python'])).toEqual({ error: expect.stringContaining('no unified diff') });
  });
});

describe('reading model answers', () => {
  it('takes the diff from a fenced block, or from its first header line', () => {
    const d = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
    expect(extractDiff(`Sure.\n\n\`\`\`diff\n${d}\`\`\`\nDone.`)).toBe(d);
    expect(extractDiff(`Here:\n${d.trimEnd()}`)).toBe(d);
    expect(extractDiff('I cannot help with that.')).toBe('');
  });

  it('takes the first JSON object, fenced or bare, and nothing else', () => {
    expect(parseJsonObject('```json\n{"actionable": true}\n```')).toEqual({ actionable: true });
    expect(parseJsonObject('Result: {"a": [1, 2]} ok')).toEqual({ a: [1, 2] });
    expect(parseJsonObject('[1, 2]')).toBeUndefined();
    expect(parseJsonObject('not json')).toBeUndefined();
  });

  it('normalises questions to the contract shape', () => {
    expect(
      normaliseQuestions([{ question: 'Which behaviour?', choices: [{ label: 'A' }, 'B'] }, { id: 'why', question: 'Why?', choices: [] }, { nothing: true }]),
    ).toEqual([
      {
        id: 'q1',
        question: 'Which behaviour?',
        choices: [
          { id: 'c1', label: 'A' },
          { id: 'c2', label: 'B' },
        ],
        allowFreeText: false,
      },
      { id: 'why', question: 'Why?', choices: [], allowFreeText: true },
    ]);
  });

  it('splits identifiers into the words the grounding searches for', () => {
    expect([...keywordsOf('computeTotal of user_accounts in calc/ops.py')].sort()).toEqual(
      ['accounts', 'calc', 'compute', 'computetotal', 'ops', 'total', 'user', 'user_accounts'].sort(),
    );
  });
});
