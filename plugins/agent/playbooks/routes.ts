import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidJsonError, reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import type { AgentOptions } from '../options.js';
import { submitTicket } from '../jobs/submit.js';
import { playbookConfigPatch, type PlaybookConfigs } from './config.js';
import { matchStory, normaliseStory, type Story } from './story.js';
import type { TicketOrigins, WebhookSecrets } from './tracker.js';

const tags = ['agent: playbooks'];

/** The input of a `ticket` job (the jobs contract, docs/agent-api.md). */
export function ticketInput(story: Story, user?: string) {
  return {
    ticket: {
      ticket_id: story.ticketId,
      repo_name: story.repo,
      title: story.title,
      description: story.description,
      labels: story.labels,
      source: 'story' as const,
      ...(story.url ? { url: story.url } : {}),
    },
    ...(user ? { user } : {}),
  };
}

export interface PlaybookRouteDeps {
  configs: PlaybookConfigs;
  origins: TicketOrigins;
  secrets: WebhookSecrets;
}

/** `GET`/`POST /api/v1/playbooks/config` and `POST /api/v1/playbooks/story-webhook`. */
export function registerPlaybookRoutes(ctx: PluginContext<AgentOptions>, d: PlaybookRouteDeps): void {
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/playbooks/config',
    permission: 'playbooks:read',
    throttle: 'light',
    tags,
    summary: "The tenant's playbook configuration: listener rules, auto-commenting, auto-merge criteria, review model",
    handler: ({ tenant }) => ({ ...d.configs.view(tenant), githubWebhook: d.secrets.view(tenant) }),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/config',
    permission: 'playbooks:manage',
    body: playbookConfigPatch,
    tags,
    summary: 'Change the playbook configuration: each given field replaces the stored one (`reset: true` starts from the defaults)',
    async handler({ tenant, body }) {
      const { githubWebhookSecret, ...patch } = body;
      const view = await d.configs.update(tenant, patch);
      if (githubWebhookSecret !== undefined) await d.secrets.set(tenant, githubWebhookSecret);
      const changed = Object.entries(body).flatMap(([section, v]) =>
        section === 'reset'
          ? v
            ? ['reset']
            : []
          : section === 'githubWebhookSecret'
            ? [v === null ? 'githubWebhookSecret:removed' : 'githubWebhookSecret:set']
            : Object.keys(v as object).map((k) => `${section}.${k}`),
      );
      await ctx.events.append('playbooks.config_changed', { changed }, { tenant });
      return { ...view, githubWebhook: d.secrets.view(tenant) };
    },
  });

  const ingest = storyIngest(ctx, d);

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/story-webhook',
    permission: 'playbooks:ingest',
    body: z.unknown(),
    tags,
    summary:
      "An assigned-story event (the generic shape or GitHub's `issues` event): a matching one starts a ticket job (202), another is ignored (200, `started: false`)",
    handler: (request) => ingest(request.tenant, request.body, request.headers),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/github-webhook/:tenant',
    permission: 'public',
    accepts: ['application/json'],
    tags,
    summary: "GitHub's `issues` webhook for a tenant, authenticated by its `X-Hub-Signature-256` (the tenant's webhook secret) instead of a key",
    async handler(request) {
      const tenant = request.params.tenant!;
      const secret = d.secrets.get(tenant);
      if (!secret) throw errors.webhook_signature_invalid({ reason: 'the tenant has no GitHub webhook secret' });
      const raw = await request.text();
      const signature = request.headers.get('x-hub-signature-256') ?? '';
      if (!verifySignature(secret, raw, signature))
        throw errors.webhook_signature_invalid({ reason: signature ? 'the signature does not match' : 'X-Hub-Signature-256 is missing' });
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch (err) {
        throw new InvalidJsonError((err as Error).message);
      }
      return ingest(tenant, body, request.headers, request.headers.get('x-github-event') ?? 'issues');
    },
  });
}

/** GitHub's `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`, compared in constant time. */
export function verifySignature(secret: string, raw: string, header: string): boolean {
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) return false;
  const want = createHmac('sha256', secret).update(raw, 'utf8').digest();
  return timingSafeEqual(want, Buffer.from(m[1]!, 'hex'));
}

/** Normalises a story, applies the tenant's listener rules and starts (or finds) its ticket job. */
function storyIngest(ctx: PluginContext<AgentOptions>, d: PlaybookRouteDeps) {
  return async (tenant: string, rawBody: unknown, headers: Headers, forcedEvent?: string) => {
    const githubEvent = forcedEvent ?? headers.get('x-github-event');
    if (githubEvent === 'ping') return { started: false, reason: 'ping', message: 'GitHub ping acknowledged' };
    if (githubEvent !== null && githubEvent !== 'issues') {
      return { started: false, reason: 'event_not_listened', message: `GitHub "${githubEvent}" events are not listened to (only "issues")` };
    }
    const story = normaliseStory(rawBody, githubEvent);
    const verdict = matchStory(story, d.configs.get(tenant).listener);
    const delivery = headers.get('x-github-delivery');
    if (!verdict.match) {
      await ctx.events.append(
        'playbooks.story_ignored',
        { ticketId: story.ticketId, repo: story.repo, event: story.event, reason: verdict.reason, ...(delivery ? { delivery } : {}) },
        { tenant },
      );
      return { started: false, reason: verdict.reason, message: verdict.message, ticketId: story.ticketId };
    }
    // The same intake as POST /api/v1/tickets/webhook: one ticket record, one job per (tenant, ticket id),
    // `repository_unknown` for a repository neither reposRoot nor the forge has.
    const job = await submitTicket(ctx, tenant, ticketInput(story).ticket);
    const created = job.created;
    if (!d.origins.get(tenant, job.jobId)) {
      await d.origins.put(tenant, {
        jobId: job.jobId,
        ticketId: story.ticketId,
        repo: story.repo,
        source: story.source,
        labels: story.labels,
        ...(story.issue ? { issue: story.issue } : {}),
        ...(story.url ? { url: story.url } : {}),
        startedAt: new Date().toISOString(),
      });
    }
    await ctx.events.append(
      'playbooks.story_started',
      { ticketId: story.ticketId, repo: story.repo, event: story.event, jobId: job.jobId, created, ...(delivery ? { delivery } : {}) },
      { tenant, subject: job.jobId },
    );
    return reply(202, {
      started: true,
      jobId: job.jobId,
      state: job.state,
      created,
      ticket: { ticket_id: story.ticketId, repo_name: story.repo, source: story.source, ...(story.issue ? { issue: story.issue } : {}) },
    });
  };
}
