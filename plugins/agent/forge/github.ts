import { ForgeError, type ForgeClient, type ForgeComment, type ForgeRepository, type PullRequest } from './client.js';

/** `fetch`-shaped transport (the plugin passes `ctx.outbound.fetch` with `trusted: true`: the forge URL is the operator's). */
export type ForgeFetch = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<{ status: number; text(): Promise<string> }>;

const enc = encodeURIComponent;

/** A forge speaking GitHub's REST API v3 (`X-GitHub-Api-Version: 2022-11-28`). */
export class GitHubForge implements ForgeClient {
  private readonly base: string;
  constructor(
    baseUrl: string,
    private readonly token: string | undefined,
    private readonly fetch: ForgeFetch,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    accept = 'application/vnd.github+json',
  ): Promise<{ status: number; text: string; json: any }> {
    const headers: Record<string, string> = { accept, 'x-github-api-version': '2022-11-28' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await this.fetch(`${this.base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, text, json };
  }

  private fail(what: string, r: { status: number; json: any; text: string }): never {
    const detail = (r.json?.message as string | undefined) ?? r.text.slice(0, 200);
    throw new ForgeError(r.status, `${what}: ${r.status} ${detail}`);
  }

  async getRepository(owner: string, repo: string): Promise<ForgeRepository | undefined> {
    const r = await this.call('GET', `/repos/${enc(owner)}/${enc(repo)}`);
    if (r.status === 404) return undefined;
    if (r.status !== 200) this.fail('reading the repository', r);
    return { fullName: r.json.full_name, cloneUrl: r.json.clone_url, defaultBranch: r.json.default_branch ?? 'main' };
  }

  async createPullRequest(owner: string, repo: string, pr: { title: string; head: string; base: string; body: string; draft?: boolean }) {
    const r = await this.call('POST', `/repos/${enc(owner)}/${enc(repo)}/pulls`, {
      title: pr.title,
      head: pr.head,
      base: pr.base,
      body: pr.body,
      draft: pr.draft ?? false,
    });
    if (r.status === 201) return { ...toPull(r.json), created: true };
    if (r.status === 422 && JSON.stringify(r.json ?? {}).includes('already exists')) {
      const list = await this.call('GET', `/repos/${enc(owner)}/${enc(repo)}/pulls?state=open&head=${enc(`${owner}:${pr.head}`)}&base=${enc(pr.base)}`);
      const found = Array.isArray(list.json) ? (list.json as any[]).find((p) => p.head?.ref === pr.head) : undefined;
      if (found) return { ...toPull(found), created: false };
    }
    this.fail('opening the pull request', r);
  }

  async getPullRequest(owner: string, repo: string, number: number): Promise<PullRequest | undefined> {
    const r = await this.call('GET', `/repos/${enc(owner)}/${enc(repo)}/pulls/${number}`);
    if (r.status === 404) return undefined;
    if (r.status !== 200) this.fail('reading the pull request', r);
    return toPull(r.json);
  }

  async getPullRequestDiff(owner: string, repo: string, number: number): Promise<string> {
    const r = await this.call('GET', `/repos/${enc(owner)}/${enc(repo)}/pulls/${number}`, undefined, 'application/vnd.github.diff');
    if (r.status !== 200) this.fail('reading the pull request diff', r);
    return r.text;
  }

  async commentOnIssue(owner: string, repo: string, number: number, body: string): Promise<ForgeComment> {
    const r = await this.call('POST', `/repos/${enc(owner)}/${enc(repo)}/issues/${number}/comments`, { body });
    if (r.status !== 201) this.fail('commenting', r);
    return { id: r.json.id, url: r.json.html_url, body: r.json.body };
  }

  async listIssueComments(owner: string, repo: string, number: number): Promise<ForgeComment[]> {
    const r = await this.call('GET', `/repos/${enc(owner)}/${enc(repo)}/issues/${number}/comments?per_page=100`);
    if (r.status !== 200) this.fail('listing comments', r);
    return (r.json as any[]).map((c) => ({ id: c.id, url: c.html_url, body: c.body }));
  }

  async mergePullRequest(owner: string, repo: string, number: number, opts: { method?: 'merge' | 'squash' | 'rebase'; title?: string } = {}) {
    const r = await this.call('PUT', `/repos/${enc(owner)}/${enc(repo)}/pulls/${number}/merge`, {
      merge_method: opts.method ?? 'merge',
      ...(opts.title ? { commit_title: opts.title } : {}),
    });
    if (r.status !== 200) this.fail('merging', r);
    return { merged: r.json.merged === true, sha: r.json.sha as string };
  }

  async createReview(owner: string, repo: string, number: number, review: { event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT'; body: string }) {
    const r = await this.call('POST', `/repos/${enc(owner)}/${enc(repo)}/pulls/${number}/reviews`, review);
    if (r.status !== 200) this.fail('reviewing', r);
    return { id: r.json.id as number };
  }
}

function toPull(p: any): PullRequest {
  return {
    number: p.number,
    url: p.html_url,
    state: p.state,
    merged: p.merged === true || p.merged_at != null,
    head: p.head?.ref,
    base: p.base?.ref,
    title: p.title,
    body: p.body ?? '',
  };
}
