import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractSymbols, syntaxErrorsOf } from '../../../plugins/agent/code/extract.js';
import { grammars, loadGrammar } from '../../../plugins/agent/code/languages.js';
import { git, makeRepo, pythonProject, type Fixture } from './git-fixture.js';
import { startAgent, type AgentApp } from './support.js';

const samples: Record<string, [string, string]> = {
  python: ['a.py', 'def f(x):\n    return x\n'],
  typescript: ['a.ts', 'export function f(x: number): number { return x; }\n'],
  tsx: ['a.tsx', 'export const A = () => <div>hi</div>;\n'],
  javascript: ['a.js', 'function f(x) { return x; }\n'],
  go: ['a.go', 'package main\n\nfunc main() {}\n'],
  java: ['A.java', 'class A { void f() {} }\n'],
  rust: ['a.rs', 'fn main() {}\n'],
  'c-sharp': ['A.cs', 'class A { void F() {} }\n'],
  cpp: ['a.cpp', 'int main() { return 0; }\n'],
  php: ['a.php', '<?php function f() { return 1; }\n'],
  ruby: ['a.rb', 'def f\n  1\nend\n'],
  bash: ['a.sh', 'echo hi\n'],
  css: ['a.css', 'a { color: red; }\n'],
};

describe('syntax trees', () => {
  it('loads every grammar it claims and parses a valid sample of each without errors', async () => {
    expect(grammars.sort()).toEqual(Object.keys(samples).sort());
    for (const [grammar, [file, text]] of Object.entries(samples)) {
      const language = await loadGrammar(grammar);
      expect(language.abiVersion, grammar).toBeGreaterThanOrEqual(13);
      expect(await syntaxErrorsOf(file, text), grammar).toEqual({ count: 0, at: [] });
    }
  });

  it('counts ERROR and MISSING nodes of a broken file with their positions', async () => {
    const broken = await syntaxErrorsOf('b.py', 'def f(x:\n    return x\n');
    expect(broken!.count).toBeGreaterThan(0);
    expect(broken!.at[0]!.line).toBeGreaterThanOrEqual(1);
    expect(await syntaxErrorsOf('b.md', '# x')).toBeUndefined();
  });

  it('extracts Python classes, methods and functions with locations and signatures, calls and imports', async () => {
    const s = (await extractSymbols('calc/ops.py', pythonProject['calc/ops.py']!))!;
    expect(s.declarations.map((d) => [d.id, d.kind, d.startLine, d.endLine, d.signature])).toEqual([
      ['calc/ops.py', 'module', 1, 26, ''],
      ['calc/ops.py#add', 'function', 5, 6, 'def add(a: int, b: int) -> int'],
      ['calc/ops.py#mul', 'function', 9, 10, 'def mul(a, b)'],
      ['calc/ops.py#Stats', 'class', 13, 21, 'class Stats'],
      ['calc/ops.py#Stats.__init__', 'method', 14, 15, 'def __init__(self, values: List[float])'],
      ['calc/ops.py#Stats.mean', 'method', 17, 18, 'def mean(self) -> float'],
      ['calc/ops.py#Stats.root', 'method', 20, 21, 'def root(self)'],
      ['calc/ops.py#total', 'function', 24, 25, 'def total(values)'],
    ]);
    expect(s.calls).toEqual([
      { caller: 'calc/ops.py#Stats.mean', callee: 'total', line: 18 },
      { caller: 'calc/ops.py#Stats.mean', callee: 'len', line: 18 },
      { caller: 'calc/ops.py#Stats.root', callee: 'sqrt', line: 21 },
      { caller: 'calc/ops.py#Stats.root', callee: 'mean', line: 21 },
      { caller: 'calc/ops.py#total', callee: 'sum', line: 25 },
    ]);
    expect(s.imports).toEqual([
      { module: 'math', names: [], line: 1 },
      { module: 'typing', names: ['List'], line: 2 },
    ]);
  });

  it('extracts TypeScript and JavaScript classes, methods, functions, arrow functions, calls and imports', async () => {
    const s = (await extractSymbols('web/app.ts', pythonProject['web/app.ts']!))!;
    expect(s.declarations.map((d) => [d.id, d.kind, d.startLine, d.signature])).toEqual([
      ['web/app.ts', 'module', 1, ''],
      ['web/app.ts#Greeter', 'class', 4, 'class Greeter'],
      ['web/app.ts#Greeter.constructor', 'method', 5, 'constructor(private name: string)'],
      ['web/app.ts#Greeter.greet', 'method', 6, 'greet(): string'],
      ['web/app.ts#load', 'function', 11, 'function load(file: string): string'],
      ['web/app.ts#shout', 'function', 15, 'const shout = (s: string) =>'],
    ]);
    expect(s.calls.map((c) => [c.caller, c.callee])).toEqual([
      ['web/app.ts#Greeter.greet', 'helper'],
      ['web/app.ts#load', 'readFileSync'],
      ['web/app.ts#shout', 'toUpperCase'],
    ]);
    expect(s.imports).toEqual([
      { module: 'node:fs', names: ['readFileSync'], line: 1 },
      { module: './util.js', names: ['helper'], line: 2 },
    ]);
    const js = (await extractSymbols('x.cjs', "const fs = require('node:fs');\nmodule.exports = function run() { fs.readFileSync('a'); };\n"))!;
    expect(js.imports).toEqual([{ module: 'node:fs', names: [], line: 1 }]);
  });
});

describe('GET /api/v1/repos/{repo_id}/knowledge-graph', () => {
  let t: AgentApp;
  let fx: Fixture;
  beforeAll(async () => {
    fx = makeRepo('acme', 'widget', pythonProject);
    t = await startAgent({ baseUrl: 'http://127.0.0.1:9/api/v1', reposRoot: fx.reposRoot, workspaces: { refreshSeconds: 0 } });
  });
  afterAll(() => t.stop());

  it('answers every declaration with caller/callee, containment and import edges when full=true', async () => {
    const { status, body } = await t.call('GET', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(status).toBe(200);
    expect(body.stats).toMatchObject({ files: 5, parsedFiles: 5, reusedFiles: 0, declarations: 20, calls: 11, imports: 6, filesWithSyntaxErrors: 0 });
    expect(body.stats.byKind).toEqual({ module: 5, class: 2, method: 5, function: 8 });
    expect(body.truncated).toBe(false);
    const edges = body.edges.map((e: { from: string; to: string; kind: string }) => `${e.from} ${e.kind} ${e.to}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        'calc/ops.py#Stats.mean calls calc/ops.py#total',
        'calc/ops.py#Stats.root calls calc/ops.py#Stats.mean',
        'tests/test_ops.py#test_add calls calc/ops.py#add',
        'tests/test_ops.py#test_mean calls calc/ops.py#Stats',
        'web/app.ts#Greeter.greet calls web/util.js#helper',
        'tests/test_ops.py imports calc/ops.py',
        'calc/__init__.py imports calc/ops.py',
        'web/app.ts imports web/util.js',
        'calc/ops.py#Stats contains calc/ops.py#Stats.mean',
      ]),
    );
    expect(edges.filter((e: string) => e.includes(' calls ') && /#(len|sqrt|sum)$/.test(e))).toEqual([]);
    expect(body.declarations.find((d: { id: string }) => d.id === 'calc/ops.py#Stats.mean')).toEqual({
      id: 'calc/ops.py#Stats.mean',
      kind: 'method',
      name: 'mean',
      qualifiedName: 'Stats.mean',
      file: 'calc/ops.py',
      startLine: 17,
      endLine: 18,
      startColumn: 5,
      signature: 'def mean(self) -> float',
      parent: 'calc/ops.py#Stats',
    });
  });

  it('bounds the summary by limit, most connected declarations first', async () => {
    const { body } = await t.call('GET', '/api/v1/repos/acme%2Fwidget/knowledge-graph?limit=3');
    expect(body.full).toBe(false);
    expect(body.truncated).toBe(true);
    expect(body.declarations).toHaveLength(3);
    expect(body.edges.length).toBeLessThanOrEqual(3);
    const ids = new Set(body.declarations.map((d: { id: string }) => d.id));
    for (const e of body.edges) expect(ids.has(e.from) && ids.has(e.to)).toBe(true);
  });

  it('parses again only the files whose content hash changed', async () => {
    writeFileSync(path.join(fx.work, 'web/util.js'), 'export function helper(name) {\n  return greet(name);\n}\nfunction greet(n) {\n  return n;\n}\n');
    git(fx.work, 'rm', '-q', 'calc/__init__.py');
    git(fx.work, 'commit', '-qam', 'change util, drop init');
    git(fx.work, 'push', '-q', 'origin', 'main');
    const { body } = await t.call('GET', '/api/v1/repos/acme%2Fwidget/knowledge-graph?full=true');
    expect(body.commit).toBe(git(fx.work, 'rev-parse', 'HEAD'));
    expect(body.stats).toMatchObject({ files: 4, parsedFiles: 1, reusedFiles: 3, removedFiles: 1 });
    const edges = body.edges.map((e: { from: string; to: string; kind: string }) => `${e.from} ${e.kind} ${e.to}`);
    expect(edges).toContain('web/util.js#helper calls web/util.js#greet');
    expect(edges.some((e: string) => e.startsWith('calc/__init__.py'))).toBe(false);
  });

  it('answers 422 repository_unknown for an unknown repository', async () => {
    const { status, body } = await t.call('GET', '/api/v1/repos/acme%2Fnope/knowledge-graph');
    expect(status).toBe(422);
    expect(body.error.code).toBe('repository_unknown');
  });
});
