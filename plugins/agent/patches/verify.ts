import path from 'node:path';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { syntaxErrorsOf } from '../code/extract.js';

/**
 * How far a hunk may stray: no context line may differ (jsdiff `fuzzFactor` 0). A hunk whose
 * context matches exactly may still sit at other line numbers than its header says (jsdiff searches
 * outward from there), as `git apply` and `patch` do.
 */
export const fuzzFactor = 0;

export type ProblemReason = 'malformed' | 'empty' | 'outside_repository' | 'does_not_apply' | 'file_exists' | 'file_missing' | 'binary' | 'syntax_errors';

export interface PatchProblem {
  file: string | null;
  reason: ProblemReason;
  message: string;
}

export interface PatchedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  oldPath?: string;
  /** The new content; `null` when the file is deleted. */
  after: string | null;
  additions: number;
  deletions: number;
}

export interface Verification {
  ok: boolean;
  files: PatchedFile[];
  problems: PatchProblem[];
}

/** What the base tree holds at a path: a regular file's text, a symlink, or nothing. */
export type TreeReader = (file: string) => Promise<{ kind: 'file'; text: string } | { kind: 'symlink' } | { kind: 'directory' } | undefined>;

/** A repository-relative path of a diff header, or a reason why it is not one. */
export function repoPath(name: string | undefined, strip: boolean): { path: string | null } | { error: string } {
  if (name === undefined || name === '') return { error: 'a file header has no name' };
  let p = name.replace(/\t.*$/, '').trim();
  if (p === '/dev/null') return { path: null };
  if (strip && /^[ab]\//.test(p)) p = p.slice(2);
  if (p.includes('\0') || p.includes('\\')) return { error: `"${p}" holds a NUL or a backslash` };
  if (path.posix.isAbsolute(p)) return { error: `"${p}" is absolute` };
  const normal = path.posix.normalize(p);
  if (normal === '.' || normal.startsWith('../') || normal === '..' || normal !== p.replace(/\/+$/, ''))
    return { error: `"${p}" leaves the repository or is not normalised` };
  if (normal.split('/').some((part) => part.toLowerCase() === '.git')) return { error: `"${p}" is inside .git` };
  return { path: normal };
}

/**
 * Verifies a unified diff against the base tree without touching anything: it parses (jsdiff 9),
 * names only normalised paths inside the repository (no `..`, no absolute paths, nothing in `.git`,
 * no path through a symlink), applies with `fuzzFactor` 0, and leaves no touched file with more
 * tree-sitter ERROR/MISSING nodes than before. Answers the new contents when every check passes.
 */
export async function verifyPatch(diff: string, read: TreeReader): Promise<Verification> {
  const problems: PatchProblem[] = [];
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diff);
  } catch (err) {
    return { ok: false, files: [], problems: [{ file: null, reason: 'malformed', message: (err as Error).message }] };
  }
  patches = patches.filter((p) => p.hunks.length > 0 || p.isRename || p.isDelete || p.isCreate || p.isBinary || p.oldFileName || p.newFileName);
  if (patches.length === 0) return { ok: false, files: [], problems: [{ file: null, reason: 'empty', message: 'the diff changes no file' }] };

  const files: PatchedFile[] = [];
  const seen = new Set<string>();
  for (const p of patches) {
    const strip =
      p.isGit === true ||
      ((p.oldFileName ?? '').startsWith('a/') && (p.newFileName ?? '').startsWith('b/')) ||
      (p.oldFileName === '/dev/null' && (p.newFileName ?? '').startsWith('b/')) ||
      ((p.oldFileName ?? '').startsWith('a/') && p.newFileName === '/dev/null');
    const from = repoPath(p.oldFileName, strip);
    const to = repoPath(p.newFileName, strip);
    const label = 'path' in to && to.path ? to.path : 'path' in from && from.path ? from.path : (p.newFileName ?? p.oldFileName ?? null);
    if ('error' in from || 'error' in to) {
      problems.push({ file: label, reason: 'outside_repository', message: ('error' in from ? from.error : '') || ('error' in to ? to.error : '') });
      continue;
    }
    if (from.path === null && to.path === null) {
      problems.push({ file: null, reason: 'malformed', message: 'a file goes from /dev/null to /dev/null' });
      continue;
    }
    if (p.isBinary) {
      problems.push({ file: label, reason: 'binary', message: 'binary patches cannot be verified' });
      continue;
    }
    const target = (to.path ?? from.path)!;
    if (seen.has(target)) {
      problems.push({ file: target, reason: 'malformed', message: `"${target}" appears twice in the diff` });
      continue;
    }
    seen.add(target);
    const through = await symlinkOnPath([from.path, to.path], read);
    if (through) {
      problems.push({ file: label, reason: 'outside_repository', message: `"${through}" is a symbolic link` });
      continue;
    }
    const create = from.path === null || p.isCreate === true;
    const del = to.path === null || p.isDelete === true;
    const source = from.path === null ? undefined : await read(from.path);
    if (!create && source?.kind !== 'file') {
      problems.push({ file: from.path, reason: 'file_missing', message: `"${from.path}" is not a file of the base tree` });
      continue;
    }
    if (create && to.path !== null && (await read(to.path)) !== undefined) {
      problems.push({ file: to.path, reason: 'file_exists', message: `"${to.path}" already exists` });
      continue;
    }
    if (to.path !== null && from.path !== null && to.path !== from.path && (await read(to.path)) !== undefined) {
      problems.push({ file: to.path, reason: 'file_exists', message: `the rename target "${to.path}" already exists` });
      continue;
    }
    const before = source?.kind === 'file' ? source.text : '';
    const after = applyPatch(before, p, { fuzzFactor });
    if (after === false) {
      const first = p.hunks[0];
      problems.push({
        file: label,
        reason: 'does_not_apply',
        message: `a hunk${first ? ` near line ${first.oldStart}` : ''} does not match the file's content`,
      });
      continue;
    }
    if (del && after !== '') {
      problems.push({ file: label, reason: 'does_not_apply', message: 'the deletion does not remove the whole content' });
      continue;
    }
    const additions = p.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith('+')).length, 0);
    const deletions = p.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith('-')).length, 0);
    const status = create ? 'added' : del ? 'deleted' : from.path !== to.path ? 'renamed' : 'modified';
    files.push({ path: target, status, ...(status === 'renamed' ? { oldPath: from.path! } : {}), after: del ? null : after, additions, deletions });
    if (!del) {
      const was = create ? { count: 0 } : await syntaxErrorsOf(from.path!, before);
      const now = await syntaxErrorsOf(target, after);
      if (was && now && now.count > was.count) {
        const where = now.at.map((a) => `${a.kind} at ${a.line}:${a.column}`).join(', ');
        problems.push({
          file: target,
          reason: 'syntax_errors',
          message: `${now.count - was.count} new syntax error(s) (${now.count} after, ${was.count} before): ${where}`,
        });
      }
    }
  }
  return { ok: problems.length === 0, files: problems.length ? [] : files, problems };
}

async function symlinkOnPath(paths: Array<string | null>, read: TreeReader): Promise<string | undefined> {
  for (const p of paths) {
    if (!p) continue;
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if ((await read(prefix))?.kind === 'symlink') return prefix;
    }
  }
  return undefined;
}
