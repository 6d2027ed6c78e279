import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import type { ForgeClient } from '../forge/client.js';
import { errors } from '../errors.js';
import { KeyedLock, type Workspaces } from './workspaces.js';

const namePart = /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,100}$/;

export interface RepoRef {
  owner: string;
  name: string;
  /** `owner/repo` */
  full: string;
}

/** `owner/repo` (the decoded `{repo_id}`), or a 422 `repository_unknown` for anything else. */
export function parseRepoId(id: string): RepoRef {
  const parts = id.split('/');
  if (parts.length !== 2 || !parts.every((p) => namePart.test(p))) throw errors.repository_unknown({ repo: id });
  return { owner: parts[0]!, name: parts[1]!, full: id };
}

/** A checked-out workspace of one repository for one tenant and user. */
export interface Checkout {
  ref: RepoRef;
  /** The clone's directory. */
  dir: string;
  git: SimpleGit;
  defaultBranch: string;
  /** Where branches are pushed (the source's `origin`, or the forge's clone URL). */
  pushUrl: string;
  /** `-c` settings every git call on this repository needs (the forge's auth header). */
  gitConfig: string[];
}

export interface RepositoriesOptions {
  reposRoot?: string;
  forge?: ForgeClient;
  forgeToken?: string;
  workspaces: Workspaces;
  refreshMs: number;
}

interface Source {
  url: string;
  pushUrl: string;
  gitConfig: string[];
}

/**
 * Finds repositories (`reposRoot` first, then the forge) and keeps one clone per tenant, user and
 * repository in its workspace, fetched at most every `refreshMs`. Work on one workspace is serialised.
 */
export class Repositories {
  readonly lock = new KeyedLock();
  private readonly fetchedAt = new Map<string, number>();

  constructor(private readonly o: RepositoriesOptions) {}

  private async source(ref: RepoRef): Promise<Source | undefined> {
    if (this.o.reposRoot) {
      const local = path.resolve(this.o.reposRoot, ref.owner, ref.name);
      if (existsSync(local) && statSync(local).isDirectory()) {
        const git = simpleGit(local);
        if (!(await git.checkIsRepo().catch(() => false))) return undefined;
        const origin = (await git.getConfig('remote.origin.url', 'local').catch(() => ({ value: null }))).value;
        const pushUrl = origin ? (/^[a-z][a-z0-9+.-]*:/i.test(origin) || path.isAbsolute(origin) ? origin : path.resolve(local, origin)) : local;
        return { url: local, pushUrl, gitConfig: [] };
      }
    }
    if (this.o.forge) {
      const found = await this.o.forge.getRepository(ref.owner, ref.name);
      if (!found) return undefined;
      const auth = this.o.forgeToken ? [`http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${this.o.forgeToken}`).toString('base64')}`] : [];
      return { url: found.cloneUrl, pushUrl: found.cloneUrl, gitConfig: auth };
    }
    return undefined;
  }

  /** Whether `reposRoot` or the forge has the repository (nothing is cloned). */
  async exists(repoId: string): Promise<boolean> {
    return (await this.source(parseRepoId(repoId))) !== undefined;
  }

  /** Runs `fn` on the tenant's and user's fresh clone of `repoId`, holding the workspace's lock. */
  async withCheckout<T>(tenant: string, user: string, repoId: string, fn: (c: Checkout) => Promise<T>): Promise<T> {
    const ref = parseRepoId(repoId);
    const source = await this.source(ref);
    if (!source) throw errors.repository_unknown({ repo: ref.full });
    const root = this.o.workspaces.open(tenant, user, ref.full);
    const dir = path.join(root, 'repo');
    return this.lock.run(dir, async () => {
      const git = simpleGit({ baseDir: root, config: source.gitConfig });
      if (!existsSync(path.join(dir, '.git'))) {
        await git.clone(source.url, dir, ['--no-checkout']);
        this.fetchedAt.set(dir, Date.now());
      }
      const repoGit = simpleGit({ baseDir: dir, config: source.gitConfig });
      const last = this.fetchedAt.get(dir) ?? 0;
      if (Date.now() - last >= this.o.refreshMs) {
        await repoGit.fetch(['origin', '--prune', '--force']);
        this.fetchedAt.set(dir, Date.now());
      }
      const head = await repoGit.raw(['symbolic-ref', '--short', 'refs/remotes/origin/HEAD']).catch(async () => {
        await repoGit.raw(['remote', 'set-head', 'origin', '--auto']);
        return repoGit.raw(['symbolic-ref', '--short', 'refs/remotes/origin/HEAD']);
      });
      const defaultBranch = head.trim().replace(/^origin\//, '');
      return fn({ ref, dir, git: repoGit, defaultBranch, pushUrl: source.pushUrl, gitConfig: source.gitConfig });
    });
  }
}

/** The commit a branch of the clone's `origin` points at, or `undefined`. */
export async function remoteCommit(c: Checkout, branch: string): Promise<string | undefined> {
  try {
    return (await c.git.revparse([`refs/remotes/origin/${branch}^{commit}`])).trim();
  } catch {
    return undefined;
  }
}
