import type { Checkout } from './repositories.js';
import { languageOf } from '../code/languages.js';

export interface RepoFile {
  path: string;
  size: number;
  extension: string;
  language: string | null;
  /** The git blob id: the file's content hash. */
  blob: string;
}

export function extensionOf(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** Every regular file of `commit` (symlinks and submodules left out), from git's tree, in path order. */
export async function listFiles(c: Checkout, commit: string): Promise<RepoFile[]> {
  const out = await c.git.raw(['ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
  const files: RepoFile[] = [];
  for (const entry of out.split('\0')) {
    if (!entry) continue;
    const tab = entry.indexOf('\t');
    const [mode, type, blob, size] = entry.slice(0, tab).split(/\s+/);
    const file = entry.slice(tab + 1);
    if (type !== 'blob' || mode === '120000') continue;
    files.push({ path: file, size: Number(size), extension: extensionOf(file), language: languageOf(file)?.name ?? null, blob: blob! });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The contents of several blobs in one `git cat-file --batch` (as UTF-8 text). */
export async function readBlobs(c: Checkout, blobs: string[]): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  if (blobs.length === 0) return result;
  const { spawn } = await import('node:child_process');
  const child = spawn('git', [...c.gitConfig.flatMap((x) => ['-c', x]), 'cat-file', '--batch'], { cwd: c.dir, stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git cat-file exited ${code}`))));
  });
  child.stdin.end(blobs.join('\n') + '\n');
  await done;
  const buf = Buffer.concat(chunks);
  let at = 0;
  for (const blob of blobs) {
    const nl = buf.indexOf(10, at);
    const header = buf.subarray(at, nl).toString();
    const [, , size] = header.split(' ');
    const n = Number(size);
    if (header.endsWith('missing') || !Number.isFinite(n)) {
      at = nl + 1;
      continue;
    }
    result.set(blob, buf.subarray(nl + 1, nl + 1 + n).toString('utf8'));
    at = nl + 1 + n + 1;
  }
  return result;
}
