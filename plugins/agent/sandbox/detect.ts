import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface TestCommand {
  runner: 'pytest' | 'npm test' | 'node --test' | 'go test' | 'configured';
  argv: string[];
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
 * The repository's test command, in this order: `go test ./...` (go.mod), `npm test` (a
 * package.json with a real `test` script), `node --test` (test files named *.test.js/mjs/cjs or
 * test/*.js), `python3 -m pytest` (pytest.ini, conftest.py, a [tool.pytest] section, setup.cfg's
 * [tool:pytest], or test_*.py / *_test.py files). `undefined` when none is found.
 */
export function detectTestCommand(dir: string): TestCommand | undefined {
  if (existsSync(path.join(dir, 'go.mod'))) return { runner: 'go test', argv: ['go', 'test', './...'] };
  const pkgFile = path.join(dir, 'package.json');
  if (existsSync(pkgFile)) {
    try {
      const script = JSON.parse(readFileSync(pkgFile, 'utf8'))?.scripts?.test;
      if (typeof script === 'string' && script.trim() && !script.includes('no test specified'))
        return { runner: 'npm test', argv: ['npm', 'test', '--silent'] };
    } catch {
      // an unreadable package.json is not a test setup
    }
  }
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
