import type { EventLog, StoreNamespace } from 'tessera-runtime/plugin';
import type { ForgeClient } from '../forge/client.js';
import type { Story } from './story.js';

/** Where a job's ticket came from, kept so progress can be posted back to it. */
export interface TicketOrigin {
  jobId: string;
  ticketId: string;
  repo: string;
  source: Story['source'];
  labels: string[];
  issue?: number;
  url?: string;
  startedAt: string;
}

/** `playbooks-tickets`: [tenant, jobId] -> origin (the job itself is found by ticket id through the ticket store). */
export class TicketOrigins {
  private readonly db;

  constructor(store: StoreNamespace) {
    this.db = store.db('playbooks-tickets');
  }

  get(tenant: string, jobId: string): TicketOrigin | undefined {
    return this.db.get([tenant, jobId]) as TicketOrigin | undefined;
  }

  async put(tenant: string, origin: TicketOrigin): Promise<void> {
    await this.db.put([tenant, origin.jobId], origin);
  }
}

/** Each tenant's GitHub webhook secret, sealed with the plugin's key file (`playbooks-secrets`: tenant -> sealed). */
export class WebhookSecrets {
  private readonly db;

  constructor(
    store: StoreNamespace,
    private readonly box: { seal(plain: string): string; open(sealed: string): string },
  ) {
    this.db = store.db('playbooks-secrets');
  }

  get(tenant: string): string | undefined {
    const sealed = this.db.get(tenant) as string | undefined;
    return sealed ? this.box.open(sealed) : undefined;
  }

  /** What a read shows: whether a secret is set, and where GitHub delivers. */
  view(tenant: string): { secretConfigured: boolean; path: string } {
    return { secretConfigured: this.db.get(tenant) !== undefined, path: `/api/v1/playbooks/github-webhook/${encodeURIComponent(tenant)}` };
  }

  async set(tenant: string, secret: string | null): Promise<void> {
    if (secret === null) await this.db.remove(tenant);
    else await this.db.put(tenant, this.box.seal(secret));
  }
}

/**
 * Posts comments back to trackers. A story that names an issue of its repository (every GitHub
 * `issues` event does; a generic story with `story.issue`) is commented on the forge with
 * `POST /repos/{owner}/{repo}/issues/{n}/comments`; pull requests take comments the same way. Every
 * comment, delivered or not, is an event (`playbooks.comment`), so the console and telemetry show it.
 */
export class TrackerComments {
  constructor(
    private readonly forge: ForgeClient | undefined,
    private readonly events: EventLog,
  ) {}

  async post(tenant: string, jobId: string, target: { repo: string; number: number | undefined; kind: 'issue' | 'pull' }, body: string): Promise<boolean> {
    const [owner, name] = target.repo.split('/') as [string, string];
    let delivered = false;
    let error: string | undefined;
    let url: string | undefined;
    if (!this.forge) error = 'no forge is configured';
    else if (target.number === undefined) error = 'the ticket names no issue to comment on';
    else {
      try {
        url = (await this.forge.commentOnIssue(owner, name, target.number, body)).url;
        delivered = true;
      } catch (err) {
        error = (err as Error).message;
      }
    }
    await this.events.append(
      'playbooks.comment',
      { jobId, repo: target.repo, target: target.kind, number: target.number ?? null, delivered, body, ...(url ? { url } : {}), ...(error ? { error } : {}) },
      { tenant, subject: jobId },
    );
    return delivered;
  }
}
