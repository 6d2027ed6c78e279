import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A path segment for a tenant, user or repository name: readable, and unique by its hash suffix. */
export function segment(name: string): string {
  const slug = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40);
  return `${slug}-${createHash('sha256').update(name).digest('hex').slice(0, 10)}`;
}

/** Creates `dir` and its missing parents under `root` with `mode` (umask does not apply). */
export function mkdirMode(dir: string, mode: number): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode });
  chmodSync(dir, mode);
}

const marker = '.last-used';

/**
 * Per-tenant-and-user workspaces: `<root>/<tenant>/<user>/<owner__repo>/` with the clone in `repo/`,
 * every level created 0700 and owned by the service. A workspace not used for `retentionHours` is
 * removed by `sweep` (the mtime of its `.last-used` marker is its last use).
 */
export class Workspaces {
  constructor(
    readonly root: string,
    private readonly retentionMs: number,
  ) {}

  /** The workspace directory of a repository for one tenant and user (created 0700, marked used). */
  open(tenant: string, user: string, repo: string): string {
    mkdirMode(this.root, 0o700);
    const tenantDir = path.join(this.root, segment(tenant));
    const userDir = path.join(tenantDir, segment(user));
    const dir = path.join(userDir, segment(repo));
    for (const d of [tenantDir, userDir, dir]) mkdirMode(d, 0o700);
    this.touch(dir);
    return dir;
  }

  touch(dir: string, at = new Date()): void {
    const file = path.join(dir, marker);
    if (!existsSync(file)) writeFileSync(file, '', { mode: 0o600 });
    utimesSync(file, at, at);
  }

  /** Removes every workspace unused for longer than the retention; answers the directories removed. */
  sweep(now = Date.now()): string[] {
    const removed: string[] = [];
    if (!existsSync(this.root)) return removed;
    for (const tenant of readdirSync(this.root)) {
      const tenantDir = path.join(this.root, tenant);
      for (const user of safeList(tenantDir)) {
        const userDir = path.join(tenantDir, user);
        for (const repo of safeList(userDir)) {
          const dir = path.join(userDir, repo);
          let used = 0;
          try {
            used = statSync(path.join(dir, marker)).mtimeMs;
          } catch {
            used = 0;
          }
          if (now - used > this.retentionMs) {
            rmSync(dir, { recursive: true, force: true });
            removed.push(dir);
          }
        }
        if (safeList(userDir).length === 0) rmSync(userDir, { recursive: true, force: true });
      }
      if (safeList(tenantDir).length === 0) rmSync(tenantDir, { recursive: true, force: true });
    }
    return removed;
  }
}

function safeList(dir: string): string[] {
  try {
    return statSync(dir).isDirectory() ? readdirSync(dir) : [];
  } catch {
    return [];
  }
}

/** One promise chain per key: work on one workspace runs one at a time. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
