import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { beforeAll, describe, expect, it } from 'vitest';
import { commitReader } from '../../../plugins/agent/patches/tree-reader.js';
import { verifyPatch, type TreeReader } from '../../../plugins/agent/patches/verify.js';
import type { Checkout } from '../../../plugins/agent/repos/repositories.js';
import { git, gitRaw, makeRepo, pythonProject, type Fixture } from './git-fixture.js';

/** A real `git diff` of `change` made in the working tree, which is then restored. */
function diffOf(fx: Fixture, change: () => void): string {
  change();
  git(fx.work, 'add', '-A');
  const d = gitRaw(fx.work, 'diff', '--cached');
  git(fx.work, 'reset', '-q', '--hard', 'HEAD');
  return d;
}

describe('patch verification', () => {
  let fx: Fixture;
  let read: TreeReader;
  const file = (p: string) => path.join(fx.work, p);
  beforeAll(async () => {
    fx = makeRepo('acme', 'verify', { ...pythonProject, 'broken.py': 'def f(:\n    pass\n' });
    symlinkSync('/etc', path.join(fx.work, 'etc-link'));
    git(fx.work, 'add', 'etc-link');
    git(fx.work, 'commit', '-qm', 'a symlink');
    const c = { dir: fx.work, git: simpleGit(fx.work), gitConfig: [] } as unknown as Checkout;
    read = await commitReader(c, git(fx.work, 'rev-parse', 'HEAD'));
  });

  it('accepts a multi-file git diff (modify, create, delete) and answers the new contents', async () => {
    const diff = diffOf(fx, () => {
      writeFileSync(file('calc/ops.py'), pythonProject['calc/ops.py']!.replace('return a * b', 'return b * a'));
      writeFileSync(file('calc/extra.py'), 'def extra():\n    return 1\n');
      git(fx.work, 'rm', '-q', 'README.md');
    });
    const v = await verifyPatch(diff, read);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['README.md', 'deleted', 0, 1],
      ['calc/extra.py', 'added', 2, 0],
      ['calc/ops.py', 'modified', 1, 1],
    ]);
    expect(v.files[2]!.after).toBe(pythonProject['calc/ops.py']!.replace('return a * b', 'return b * a'));
    expect(v.files[0]!.after).toBeNull();
  });

  it('applies a hunk whose header line numbers are off when its context matches exactly', async () => {
    const diff = diffOf(fx, () => writeFileSync(file('calc/ops.py'), pythonProject['calc/ops.py']!.replace('return sum(values)', 'return sum(values) or 0')));
    const shifted = diff.replace(/@@ -(\d+),(\d+) \+(\d+),(\d+) @@/, (_m, a, b, c, d) => `@@ -${Number(a) - 3},${b} +${Number(c) - 3},${d} @@`);
    expect(shifted).not.toBe(diff);
    const v = await verifyPatch(shifted, read);
    expect(v.ok).toBe(true);
    expect(v.files[0]!.after).toContain('return sum(values) or 0');
  });

  it('refuses a hunk with one context line that differs (no fuzz)', async () => {
    const diff = diffOf(fx, () => writeFileSync(file('calc/ops.py'), pythonProject['calc/ops.py']!.replace('return a * b', 'return b * a')));
    const wrong = diff.replace(/^ def mul\(a, b\):$/m, ' def mul(a, c):');
    expect(wrong).not.toBe(diff);
    const v = await verifyPatch(wrong, read);
    expect(v).toEqual({
      ok: false,
      files: [],
      problems: [{ file: 'calc/ops.py', reason: 'does_not_apply', message: expect.stringContaining('does not match') }],
    });
  });

  it('refuses a malformed diff and an empty one', async () => {
    const bad = await verifyPatch('--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n-a\n+b\n', read);
    expect(bad.ok).toBe(false);
    expect(bad.problems[0]!.reason).toBe('malformed');
    expect((await verifyPatch('just words\n', read)).problems).toEqual([{ file: null, reason: 'empty', message: 'the diff changes no file' }]);
  });

  it('refuses paths outside the repository: .., absolute, .git and through a symlink', async () => {
    const mk = (name: string) => `--- /dev/null\n+++ ${name}\n@@ -0,0 +1 @@\n+x\n`;
    for (const name of ['b/../outside.txt', '/etc/passwd', 'b/.git/hooks/pre-commit', 'b/calc/../../x', 'b/etc-link/passwd']) {
      const v = await verifyPatch(mk(name), read);
      expect(v.ok, name).toBe(false);
      expect(v.problems[0]!.reason, name).toBe('outside_repository');
    }
  });

  it('refuses creating a file that exists and changing one that does not', async () => {
    expect((await verifyPatch('--- /dev/null\n+++ b/README.md\n@@ -0,0 +1 @@\n+x\n', read)).problems[0]!.reason).toBe('file_exists');
    expect((await verifyPatch('--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n', read)).problems[0]!.reason).toBe('file_missing');
  });

  it('refuses a change that adds tree-sitter ERROR or MISSING nodes, and accepts one to a file already broken that adds none', async () => {
    const breaking = diffOf(fx, () => writeFileSync(file('calc/ops.py'), pythonProject['calc/ops.py']!.replace('def mul(a, b):', 'def mul(a, b:')));
    const v = await verifyPatch(breaking, read);
    expect(v.ok).toBe(false);
    expect(v.problems).toHaveLength(1);
    expect(v.problems[0]).toMatchObject({ file: 'calc/ops.py', reason: 'syntax_errors' });
    expect(v.problems[0]!.message).toMatch(/new syntax error\(s\) \(\d+ after, 0 before\): (error|missing) at \d+:\d+/);
    const ts = diffOf(fx, () =>
      writeFileSync(file('web/app.ts'), pythonProject['web/app.ts']!.replace('return helper(this.name);', 'return helper(this.name;')),
    );
    expect((await verifyPatch(ts, read)).problems[0]).toMatchObject({ file: 'web/app.ts', reason: 'syntax_errors' });
    const unrelated = diffOf(fx, () => writeFileSync(file('broken.py'), 'def f(:\n    pass\n\n\nX = 1\n'));
    expect((await verifyPatch(unrelated, read)).ok).toBe(true);
  });
});
