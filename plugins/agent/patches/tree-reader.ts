import { readBlobs } from '../repos/files.js';
import type { Checkout } from '../repos/repositories.js';
import type { TreeReader } from './verify.js';

/** Reads the tree of one commit from git's object store (the working tree is not looked at). */
export async function commitReader(c: Checkout, commit: string): Promise<TreeReader> {
  const out = await c.git.raw(['ls-tree', '-r', '-t', '-z', '--full-tree', commit]);
  const entries = new Map<string, { mode: string; type: string; blob: string }>();
  for (const line of out.split('\0')) {
    if (!line) continue;
    const tab = line.indexOf('\t');
    const [mode, type, blob] = line.slice(0, tab).split(' ');
    entries.set(line.slice(tab + 1), { mode: mode!, type: type!, blob: blob! });
  }
  return async (file) => {
    const e = entries.get(file);
    if (!e) return undefined;
    if (e.type === 'tree' || e.type === 'commit') return { kind: 'directory' };
    if (e.mode === '120000') return { kind: 'symlink' };
    const text = (await readBlobs(c, [e.blob])).get(e.blob) ?? '';
    return { kind: 'file', text };
  };
}
