/** A pull request as the forge reports it. */
export interface PullRequest {
  number: number;
  url: string;
  state: 'open' | 'closed';
  merged: boolean;
  head: string;
  base: string;
  title: string;
  body: string;
}

export interface ForgeRepository {
  fullName: string;
  cloneUrl: string;
  defaultBranch: string;
}

export interface ForgeComment {
  id: number;
  url: string;
  body: string;
}

/**
 * What the agent needs from a forge: the calls of GitHub's REST API (pulls, issue comments, merges,
 * reviews). Any forge speaking it (GitHub, Gitea, Forgejo) is used through `GitHubForge`; another
 * kind implements this interface and passes the conformance suite (test/plugins/agent/forge-conformance.ts).
 */
export interface ForgeClient {
  /** The repository, or `undefined` when the forge has none of that name (404). */
  getRepository(owner: string, repo: string): Promise<ForgeRepository | undefined>;
  /** Opens a pull request; when one is already open for `head`, answers that one (`created: false`). */
  createPullRequest(
    owner: string,
    repo: string,
    pr: { title: string; head: string; base: string; body: string; draft?: boolean },
  ): Promise<PullRequest & { created: boolean }>;
  getPullRequest(owner: string, repo: string, number: number): Promise<PullRequest | undefined>;
  /** The unified diff of a pull request. */
  getPullRequestDiff(owner: string, repo: string, number: number): Promise<string>;
  commentOnIssue(owner: string, repo: string, number: number, body: string): Promise<ForgeComment>;
  listIssueComments(owner: string, repo: string, number: number): Promise<ForgeComment[]>;
  mergePullRequest(
    owner: string,
    repo: string,
    number: number,
    opts?: { method?: 'merge' | 'squash' | 'rebase'; title?: string },
  ): Promise<{ merged: boolean; sha: string }>;
  createReview(
    owner: string,
    repo: string,
    number: number,
    review: { event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT'; body: string },
  ): Promise<{ id: number }>;
}

/** A forge call that failed: the status and the forge's message. */
export class ForgeError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ForgeError';
  }
}
