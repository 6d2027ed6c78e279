import { z, type PluginContext, type RouteRequest } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import type { AgentOptions } from '../options.js';
import { listFiles } from './files.js';
import { remoteCommit, type Checkout, type Repositories } from './repositories.js';

/** The user a workspace belongs to: the principal's user (`userId`, as rbac keys carry), else the principal, else `anonymous` (auth off). */
export function userOf(request: Pick<RouteRequest, 'principal'>): string {
  const p = request.principal as (RouteRequest['principal'] & { userId?: unknown }) | undefined;
  return typeof p?.userId === 'string' ? p.userId : (p?.id ?? 'anonymous');
}

/** The commit of `branch` (default: the repository's default branch), or 422 `branch_not_found`. */
export async function baseCommit(c: Checkout, branch?: string): Promise<{ branch: string; commit: string }> {
  const name = branch ?? c.defaultBranch;
  const commit = await remoteCommit(c, name);
  if (!commit) throw errors.branch_not_found({ branch: name, repo: c.ref.full });
  return { branch: name, commit };
}

const filesQuery = z.strictObject({ branch: z.string().min(1).max(250).optional() });

/** `GET /api/v1/repos/{repo_id}/files`. */
export function registerRepoRoutes(ctx: PluginContext<AgentOptions>, repos: Repositories): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/repos/:repo_id/files',
    permission: 'repos:read',
    query: filesQuery,
    tags: ['agent: repositories'],
    summary: 'The file tree of a repository: paths, sizes, extensions and languages',
    handler: async (request) =>
      repos.withCheckout(request.tenant, userOf(request), request.params.repo_id!, async (c) => {
        const base = await baseCommit(c, request.query.branch);
        const files = await listFiles(c, base.commit);
        const languages: Record<string, number> = {};
        for (const f of files) if (f.language) languages[f.language] = (languages[f.language] ?? 0) + 1;
        return {
          repo: c.ref.full,
          branch: base.branch,
          commit: base.commit,
          total: files.length,
          totalBytes: files.reduce((n, f) => n + f.size, 0),
          languages,
          files: files.map(({ path, size, extension, language }) => ({ path, size, extension, language })),
        };
      }),
  });
}
