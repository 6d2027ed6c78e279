import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Pull {
  number: number;
  owner: string;
  repo: string;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  mergeSha?: string;
}

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Forge',
  GIT_AUTHOR_EMAIL: 'forge@example.com',
  GIT_COMMITTER_NAME: 'Forge',
  GIT_COMMITTER_EMAIL: 'forge@example.com',
};
const git = (bare: string, ...args: string[]) => execFileSync('git', ['-C', bare, ...args], { encoding: 'utf8', env: gitEnv }).trim();

/**
 * A local forge speaking GitHub's REST API for what the agent uses: repositories, pulls (create,
 * list, get, diff, merge), issue comments and reviews, over bare git repositories. Merges are real
 * (`git merge-tree --write-tree`, then a merge or squash commit on the base branch).
 */
export class ForgeServer {
  readonly repos = new Map<string, { bare: string; defaultBranch: string }>();
  readonly pulls: Pull[] = [];
  readonly comments: Array<{ id: number; owner: string; repo: string; issue: number; body: string }> = [];
  readonly reviews: Array<{ id: number; pull: number; event: string; body: string }> = [];
  readonly requests: Array<{ method: string; path: string; auth: string | undefined; body: any }> = [];
  private server?: Server;
  url = '';

  constructor(readonly token?: string) {}

  addRepo(full: string, bare: string, defaultBranch = 'main'): void {
    this.repos.set(full, { bare, defaultBranch });
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  private pullJson(p: Pull) {
    const bare = this.repos.get(`${p.owner}/${p.repo}`)!.bare;
    const sha = spawnSync('git', ['-C', bare, 'rev-parse', `refs/heads/${p.head}`], { encoding: 'utf8' }).stdout.trim();
    return {
      number: p.number,
      html_url: `${this.url}/${p.owner}/${p.repo}/pull/${p.number}`,
      state: p.state,
      title: p.title,
      body: p.body,
      draft: p.draft,
      merged: p.merged,
      merged_at: p.merged ? new Date().toISOString() : null,
      merge_commit_sha: p.mergeSha ?? null,
      head: { ref: p.head, sha, label: `${p.owner}:${p.head}` },
      base: { ref: p.base },
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString();
    const body = text ? JSON.parse(text) : undefined;
    const url = new URL(req.url ?? '/', 'http://x');
    this.requests.push({ method: req.method!, path: url.pathname, auth: req.headers.authorization, body });
    if (this.token && req.headers.authorization !== `Bearer ${this.token}`) return this.send(res, 401, { message: 'Bad credentials' });
    const m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) return this.send(res, 404, { message: 'Not Found' });
    const [owner, name, rest = ''] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), m[3]];
    const repo = this.repos.get(`${owner}/${name}`);
    if (!repo) return this.send(res, 404, { message: 'Not Found' });
    const method = req.method!;
    if (method === 'GET' && rest === '') {
      return this.send(res, 200, {
        full_name: `${owner}/${name}`,
        clone_url: repo.bare,
        default_branch: repo.defaultBranch,
        html_url: `${this.url}/${owner}/${name}`,
      });
    }
    if (method === 'POST' && rest === '/pulls') {
      const exists = spawnSync('git', ['-C', repo.bare, 'rev-parse', '--verify', '-q', `refs/heads/${body.head}`]).status === 0;
      if (!exists) return this.send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }] });
      if (this.pulls.some((p) => p.owner === owner && p.repo === name && p.head === body.head && p.base === body.base && p.state === 'open'))
        return this.send(res, 422, {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${owner}:${body.head}.` }],
        });
      const pull: Pull = {
        number: this.pulls.length + this.comments.length + 1,
        owner,
        repo: name,
        title: body.title,
        body: body.body ?? '',
        head: body.head,
        base: body.base,
        draft: body.draft === true,
        state: 'open',
        merged: false,
      };
      this.pulls.push(pull);
      return this.send(res, 201, this.pullJson(pull));
    }
    if (method === 'GET' && rest === '/pulls') {
      const state = url.searchParams.get('state') ?? 'open';
      const head = url.searchParams.get('head');
      const list = this.pulls.filter(
        (p) => p.owner === owner && p.repo === name && (state === 'all' || p.state === state) && (!head || `${p.owner}:${p.head}` === head),
      );
      return this.send(
        res,
        200,
        list.map((p) => this.pullJson(p)),
      );
    }
    const pm = /^\/(pulls|issues)\/(\d+)(\/[a-z]+)?$/.exec(rest);
    if (!pm) return this.send(res, 404, { message: 'Not Found' });
    const number = Number(pm[2]);
    const pull = this.pulls.find((p) => p.owner === owner && p.repo === name && p.number === number);
    if (pm[1] === 'issues' && pm[3] === '/comments') {
      if (method === 'POST') {
        const id = 1000 + this.comments.length;
        this.comments.push({ id, owner, repo: name, issue: number, body: body.body });
        return this.send(res, 201, { id, body: body.body, html_url: `${this.url}/${owner}/${name}/issues/${number}#issuecomment-${id}` });
      }
      const list = this.comments.filter((c) => c.owner === owner && c.repo === name && c.issue === number);
      return this.send(
        res,
        200,
        list.map((c) => ({ id: c.id, body: c.body, html_url: `${this.url}/${owner}/${name}/issues/${number}#issuecomment-${c.id}` })),
      );
    }
    if (!pull) return this.send(res, 404, { message: 'Not Found' });
    if (method === 'GET' && !pm[3]) {
      if ((req.headers.accept ?? '').includes('diff'))
        return this.send(res, 200, execFileSync('git', ['-C', repo.bare, 'diff', `${pull.base}...${pull.head}`], { encoding: 'utf8' }), 'text/plain');
      return this.send(res, 200, this.pullJson(pull));
    }
    if (method === 'POST' && pm[3] === '/reviews') {
      const id = 5000 + this.reviews.length;
      this.reviews.push({ id, pull: number, event: body.event, body: body.body });
      return this.send(res, 200, {
        id,
        state: body.event === 'APPROVE' ? 'APPROVED' : body.event === 'REQUEST_CHANGES' ? 'CHANGES_REQUESTED' : 'COMMENTED',
        body: body.body,
      });
    }
    if (method === 'PUT' && pm[3] === '/merge') {
      if (pull.state !== 'open') return this.send(res, 405, { message: 'Pull Request is not mergeable' });
      const tree = spawnSync('git', ['-C', repo.bare, 'merge-tree', '--write-tree', `refs/heads/${pull.base}`, `refs/heads/${pull.head}`], {
        encoding: 'utf8',
      });
      if (tree.status !== 0) return this.send(res, 405, { message: 'Pull Request is not mergeable' });
      const parents = body?.merge_method === 'squash' ? [`refs/heads/${pull.base}`] : [`refs/heads/${pull.base}`, `refs/heads/${pull.head}`];
      const message = body?.commit_title ?? `Merge pull request #${number} from ${owner}/${pull.head}`;
      const sha = git(repo.bare, 'commit-tree', tree.stdout.trim().split('\n')[0]!, ...parents.flatMap((p) => ['-p', p]), '-m', message);
      git(repo.bare, 'update-ref', `refs/heads/${pull.base}`, sha);
      Object.assign(pull, { state: 'closed', merged: true, mergeSha: sha });
      return this.send(res, 200, { sha, merged: true, message: 'Pull Request successfully merged' });
    }
    return this.send(res, 404, { message: 'Not Found' });
  }
}
