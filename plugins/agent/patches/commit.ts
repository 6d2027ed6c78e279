import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Checkout } from '../repos/repositories.js';
import type { PatchedFile } from './verify.js';

export interface GitRun {
  (args: string[], o?: { input?: string; env?: Record<string, string> }): Promise<string>;
}

/** git in the checkout's directory with its `-c` settings; rejects with git's stderr. */
export function gitIn(c: Checkout): GitRun {
  return (args, o = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        [...c.gitConfig.flatMap((x) => ['-c', x]), ...args],
        { cwd: c.dir, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...o.env }, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => (err ? reject(new Error(String(stderr || err.message).trim())) : resolve(stdout)),
      );
      if (o.input !== undefined) child.stdin!.end(o.input);
    });
}

/** `agent/patch-<12 hex>`: from a hash of the diff and the base commit, so the same patch on the same base is the same branch. */
export function patchBranch(diff: string, base: string): string {
  return `agent/patch-${createHash('sha256').update(base).update('\0').update(diff).digest('hex').slice(0, 12)}`;
}

/**
 * Writes a commit of `files` on top of `base` without touching the working tree, the index or any
 * ref: blobs and the tree go into the object store through a temporary index file.
 */
export async function commitFiles(
  c: Checkout,
  base: string,
  files: PatchedFile[],
  o: { message: string; author: { name: string; email: string }; date?: string },
): Promise<{ commit: string; tree: string }> {
  const git = gitIn(c);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'tessera-index-'));
  const env = { GIT_INDEX_FILE: path.join(tmp, 'index') };
  try {
    await git(['read-tree', base], { env });
    for (const f of files) {
      if (f.oldPath) await git(['update-index', '--remove', '--force-remove', '--', f.oldPath], { env });
      if (f.after === null) {
        await git(['update-index', '--force-remove', '--', f.path], { env });
        continue;
      }
      const blob = (await git(['hash-object', '-w', '--stdin'], { input: f.after })).trim();
      const mode = (await git(['ls-tree', base, '--', f.oldPath ?? f.path])).split(' ')[0] || '100644';
      await git(['update-index', '--add', '--cacheinfo', `${mode === '100755' ? '100755' : '100644'},${blob},${f.path}`], { env });
    }
    const tree = (await git(['write-tree'], { env })).trim();
    const who = { GIT_AUTHOR_NAME: o.author.name, GIT_AUTHOR_EMAIL: o.author.email, GIT_COMMITTER_NAME: o.author.name, GIT_COMMITTER_EMAIL: o.author.email };
    const dates: Record<string, string> = o.date ? { GIT_AUTHOR_DATE: o.date, GIT_COMMITTER_DATE: o.date } : {};
    const commit = (await git(['commit-tree', tree, '-p', base, '-F', '-'], { input: o.message, env: { ...who, ...dates } })).trim();
    return { commit, tree };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The commit a branch of `remote` points at, or `undefined`. */
export async function remoteBranch(c: Checkout, remote: string, branch: string): Promise<string | undefined> {
  const out = await gitIn(c)(['ls-remote', '--heads', remote, `refs/heads/${branch}`]);
  return out.split('\t')[0]?.trim() || undefined;
}
