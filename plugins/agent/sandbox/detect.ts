import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCommand {
  runner: 'pytest' | 'npm test' | 'node --test' | 'go test' | 'configured';
  argv: string[];
  /**
   * The tests are TypeScript: `argv` is `node --test <files>`, and the sandbox inserts
   * `--import <Tessera's TypeScript loader>` after `node` (docs/agent-api.md, "TypeScript repositories").
   */
  typescript?: true;
}

/** The file names `node --test` takes as tests (Node 20's rule), in JavaScript or TypeScript. */
const nodeTestName = /^(?:.+[._-]test|test-.+|test)\.(?:c|m)?(?:js|ts)$/;
const scriptFile = /\.(?:c|m)?(?:js|ts)$/;
const typescriptFile = /\.(?:c|m)?ts$/;

/**
 * The test files of a repository by `node --test`'s naming rule (`*.test.*`, `*-test.*`,
 * `*_test.*`, `test-*.*`, `test.*`, and any script under a `test` folder), in `.js`/`.cjs`/`.mjs`
 * and `.ts`/`.cts`/`.mts` (never `.d.ts`), relative to `dir` and sorted; at most `limit`.
 */
export function nodeTestFiles(dir: string, limit = 2000): string[] {
  const out: string[] = [];
  const walk = (rel: string, depth: number, inTest: boolean) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (out.length >= limit || e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && depth > 0) walk(p, depth - 1, inTest || e.name === 'test');
      else if (e.isFile() && !e.name.endsWith('.d.ts') && scriptFile.test(e.name) && (inTest || nodeTestName.test(e.name))) out.push(p);
    }
  };
  walk('', 8, false);
  return out.sort();
}

/** Test runners and TypeScript launchers a `test` script may start that come from npm (not runnable offline unless installed). */
const packageRunners = new Set(['vitest', 'jest', 'mocha', 'ava', 'tap', 'tape', 'uvu', 'tsx', 'ts-node', 'ts-mocha', 'c8', 'nyc', 'npx', 'borp']);

/** The program a package.json `test` script starts (environment assignments skipped). */
function scriptProgram(script: string): string | undefined {
  return script
    .trim()
    .split(/\s+/)
    .find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
}

function anyFile(dir: string, test: (name: string) => boolean, depth = 3): boolean {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    if (e.isFile() && test(e.name)) return true;
    if (e.isDirectory() && depth > 0 && anyFile(path.join(dir, e.name), test, depth - 1)) return true;
  }
  return false;
}

/**
 * The repository's test command, in this order: `go test ./...` (go.mod); **TypeScript tests**
 * (test files in `.ts`/`.mts`/`.cts` by `node --test`'s naming rule) when the repository has no
 * runner of its own that works offline: no `test` script, or one that starts `node` (Node 20
 * cannot load `.ts` itself), or one that starts an npm test runner or TypeScript launcher
 * (`vitest`, `jest`, `mocha`, `tsx`, `ts-node`, `npx`...) not installed in its
 * `node_modules/.bin` (installing it would need the network): `node --test <every test file,
 * .ts and .js>` with Tessera's loader. A script starting anything else (`npm run`, `make`, a
 * shell script, an installed runner) is the repository's own; `npm test` (a package.json with a real `test` script); `node --test` (test
 * files named *.test.js/mjs/cjs or test/*.js); `python3 -m pytest` (pytest.ini, conftest.py, a
 * [tool.pytest] section, setup.cfg's [tool:pytest], or test_*.py / *_test.py files). `undefined`
 * when none is found.
 */
export function detectTestCommand(dir: string): TestCommand | undefined {
  if (existsSync(path.join(dir, 'go.mod'))) return { runner: 'go test', argv: ['go', 'test', './...'] };
  const pkgFile = path.join(dir, 'package.json');
  let script: string | undefined;
  if (existsSync(pkgFile)) {
    try {
      const s = JSON.parse(readFileSync(pkgFile, 'utf8'))?.scripts?.test;
      if (typeof s === 'string' && s.trim() && !s.includes('no test specified')) script = s;
    } catch {
      // an unreadable package.json is not a test setup
    }
  }
  const files = nodeTestFiles(dir);
  if (files.some((f) => typescriptFile.test(f))) {
    const program = script === undefined ? undefined : scriptProgram(script);
    const installed = program !== undefined && existsSync(path.join(dir, 'node_modules', '.bin', program));
    if (program === undefined || program === 'node' || (packageRunners.has(program) && !installed))
      return { runner: 'node --test', argv: ['node', '--test', ...files], typescript: true };
  }
  if (script !== undefined) return { runner: 'npm test', argv: ['npm', 'test', '--silent'] };
  if (
    anyFile(dir, (n) => /\.test\.(m|c)?js$/.test(n)) ||
    (existsSync(path.join(dir, 'test')) && anyFile(path.join(dir, 'test'), (n) => /\.(m|c)?js$/.test(n), 0))
  )
    return { runner: 'node --test', argv: ['node', '--test'] };
  const pyproject = path.join(dir, 'pyproject.toml');
  const setupCfg = path.join(dir, 'setup.cfg');
  if (
    existsSync(path.join(dir, 'pytest.ini')) ||
    existsSync(path.join(dir, 'conftest.py')) ||
    (existsSync(pyproject) && readFileSync(pyproject, 'utf8').includes('[tool.pytest')) ||
    (existsSync(setupCfg) && readFileSync(setupCfg, 'utf8').includes('[tool:pytest]')) ||
    anyFile(dir, (n) => /^test_.*\.py$|_test\.py$/.test(n))
  )
    return { runner: 'pytest', argv: ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider'] };
  return undefined;
}
