import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../helpers/app.js';

export function git(cwd: string, ...args: string[]): string {
  return gitRaw(cwd, ...args).trim();
}

/** git's output as it is (a diff keeps its trailing blanks). */
export function gitRaw(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 'Dev', GIT_AUTHOR_EMAIL: 'dev@example.com', GIT_COMMITTER_NAME: 'Dev', GIT_COMMITTER_EMAIL: 'dev@example.com' },
  });
}

export interface Fixture {
  reposRoot: string;
  /** `<reposRoot>/<owner>/<repo>`: the working repository. */
  work: string;
  /** Its `origin`: a bare repository. */
  bare: string;
}

/** `<reposRoot>/owner/repo` with `files` committed on `main` and pushed to a bare `origin`. */
export function makeRepo(owner: string, repo: string, files: Record<string, string>, root = tempDir('tessera-agent-repos-')): Fixture {
  const work = path.join(root, owner, repo);
  const bare = path.join(root, '_remotes', `${owner}-${repo}.git`);
  mkdirSync(work, { recursive: true });
  mkdirSync(bare, { recursive: true });
  git(bare, 'init', '--bare', '-q', '-b', 'main');
  git(work, 'init', '-q', '-b', 'main');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    writeFileSync(path.join(work, file), text);
  }
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'initial');
  git(work, 'remote', 'add', 'origin', bare);
  git(work, 'push', '-q', 'origin', 'main');
  return { reposRoot: root, work, bare };
}

export const pythonProject: Record<string, string> = {
  'calc/__init__.py': 'from .ops import add, mul\n',
  'calc/ops.py': [
    'import math',
    'from typing import List',
    '',
    '',
    'def add(a: int, b: int) -> int:',
    '    return a + b',
    '',
    '',
    'def mul(a, b):',
    '    return a * b',
    '',
    '',
    'class Stats:',
    '    def __init__(self, values: List[float]):',
    '        self.values = values',
    '',
    '    def mean(self) -> float:',
    '        return total(self.values) / len(self.values)',
    '',
    '    def root(self):',
    '        return math.sqrt(self.mean())',
    '',
    '',
    'def total(values):',
    '    return sum(values)',
    '',
  ].join('\n'),
  'tests/test_ops.py': [
    'from calc.ops import add, Stats',
    '',
    '',
    'def test_add():',
    '    assert add(2, 2) == 4',
    '',
    '',
    'def test_mean():',
    '    assert Stats([1, 2, 3]).mean() == 2',
    '',
  ].join('\n'),
  'README.md': '# calc\n',
  'web/app.ts': [
    "import { readFileSync } from 'node:fs';",
    "import { helper } from './util.js';",
    '',
    'export class Greeter {',
    '  constructor(private name: string) {}',
    '  greet(): string {',
    '    return helper(this.name);',
    '  }',
    '}',
    '',
    'export function load(file: string): string {',
    "  return readFileSync(file, 'utf8');",
    '}',
    '',
    'export const shout = (s: string) => s.toUpperCase();',
    '',
  ].join('\n'),
  'web/util.js': ['export function helper(name) {', '  return `hello ${name}`;', '}', ''].join('\n'),
};
