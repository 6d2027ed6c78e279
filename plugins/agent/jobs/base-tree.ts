import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Checkout } from '../repos/repositories.js';

/**
 * The files of `commit` written out once beside the clone (`<workspace>/trees/<commit>`, 0700): the
 * clone has no working tree, and each sandboxed test run copies this one. Written into a temporary
 * directory and renamed, so a crash never leaves half a tree behind the name.
 */
export async function baseTree(c: Checkout, commit: string): Promise<string> {
  const trees = path.join(path.dirname(c.dir), 'trees');
  const dir = path.join(trees, commit);
  if (existsSync(dir)) return dir;
  mkdirSync(trees, { recursive: true, mode: 0o700 });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(tmp, { mode: 0o700 });
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        'git',
        [...c.gitConfig.flatMap((x) => ['-c', x]), '--work-tree', tmp, 'checkout', '-f', commit, '--', '.'],
        { cwd: c.dir, env: { ...process.env, GIT_INDEX_FILE: path.join(tmp, '.git-index'), GIT_TERMINAL_PROMPT: '0' } },
        (err, _out, stderr) => (err ? reject(new Error(String(stderr || err.message).trim())) : resolve()),
      );
    });
    rmSync(path.join(tmp, '.git-index'), { force: true });
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw err;
  }
  return dir;
}
