import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { errors } from './errors.js';

/**
 * The folders scans may read. Every check resolves symlinks first, so a link inside a root that
 * points elsewhere is judged by where it points.
 */
export class Roots {
  private readonly resolved: string[];

  constructor(roots: readonly string[], base: string) {
    this.resolved = roots.map((r) => {
      const absolute = path.resolve(base, r);
      try {
        return realpathSync(absolute);
      } catch {
        // A root that does not exist yet is kept as written; nothing resolves under it until it does.
        return absolute;
      }
    });
  }

  get configured(): boolean {
    return this.resolved.length > 0;
  }

  /** Whether an already resolved path is one of the roots or inside one. */
  contains(realPath: string): boolean {
    return this.resolved.some((root) => realPath === root || realPath.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
  }

  /**
   * The real path of `requested` when it may be scanned and is a folder or file as `kind` says;
   * 403 `scan_roots_not_configured` / `path_not_allowed`, 400 `path_not_found` otherwise.
   */
  resolve(requested: string, kind: 'folder' | 'file'): string {
    if (!this.configured) throw errors.scan_roots_not_configured();
    let real: string;
    try {
      real = realpathSync(path.resolve(requested));
    } catch {
      // Say "not allowed" rather than "not found" for paths outside the roots, so the answer does
      // not reveal what exists elsewhere on the machine.
      if (!this.contains(path.resolve(requested))) throw errors.path_not_allowed({ path: requested });
      throw errors.path_not_found({ path: requested, kind });
    }
    if (!this.contains(real)) throw errors.path_not_allowed({ path: requested });
    const stat = statSync(real);
    if (kind === 'folder' ? !stat.isDirectory() : !stat.isFile()) throw errors.path_not_found({ path: requested, kind });
    return real;
  }
}
