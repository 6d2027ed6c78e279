import { reply, z, type PluginContext } from 'tessera-runtime/plugin';
import { errors } from '../errors.js';
import type { AgentOptions } from '../options.js';
import type { Repositories } from '../repos/repositories.js';
import { playbookConfigPatch, type PlaybookConfigs } from './config.js';
import { matchStory, normaliseStory, type Story } from './story.js';
import type { TicketOrigins } from './tracker.js';

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
  repos: Repositories;
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
    handler: ({ tenant }) => d.configs.view(tenant),
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/config',
    permission: 'playbooks:manage',
    body: playbookConfigPatch,
    tags,
    summary: 'Change the playbook configuration: each given field replaces the stored one (`reset: true` starts from the defaults)',
    async handler({ tenant, body }) {
      const view = await d.configs.update(tenant, body);
      const changed = Object.entries(body).flatMap(([section, v]) =>
        section === 'reset' ? (v ? ['reset'] : []) : Object.keys(v as object).map((k) => `${section}.${k}`),
      );
      await ctx.events.append('playbooks.config_changed', { changed }, { tenant });
      return view;
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/playbooks/story-webhook',
    permission: 'playbooks:ingest',
    body: z.unknown(),
    tags,
    summary:
      "An assigned-story event (the generic shape or GitHub's `issues` event): a matching one starts a ticket job (202), another is ignored (200, `started: false`)",
    async handler(request) {
      const { tenant } = request;
      const githubEvent = request.headers.get('x-github-event');
      if (githubEvent === 'ping') return { started: false, reason: 'ping', message: 'GitHub ping acknowledged' };
      if (githubEvent !== null && githubEvent !== 'issues') {
        return { started: false, reason: 'event_not_listened', message: `GitHub "${githubEvent}" events are not listened to (only "issues")` };
      }
      const story = normaliseStory(request.body, githubEvent);
      const verdict = matchStory(story, d.configs.get(tenant).listener);
      const delivery = request.headers.get('x-github-delivery');
      if (!verdict.match) {
        await ctx.events.append(
          'playbooks.story_ignored',
          { ticketId: story.ticketId, repo: story.repo, event: story.event, reason: verdict.reason, ...(delivery ? { delivery } : {}) },
          { tenant },
        );
        return { started: false, reason: verdict.reason, message: verdict.message, ticketId: story.ticketId };
      }
      if (!(await d.repos.known(story.repo))) throw errors.repository_unknown({ repo: story.repo });
      // Until the ticket pipeline's submitTicket is available here, the job is enqueued as the jobs contract says.
      const jobs = ctx.jobs.tenant(tenant);
      // A redelivered story answers the job its first delivery started. The tenant's own index is
      // looked at first: the runtime's idempotency keys are per plugin, not per tenant, so two
      // tenants with one ticket id would otherwise take each other's key.
      const earlier = d.origins.jobOf(tenant, story.ticketId);
      const before = Date.now();
      const job = (earlier ? jobs.get(earlier) : undefined) ?? (await jobs.enqueue('ticket', ticketInput(story), { key: `ticket:${story.ticketId}` }));
      const created = Date.parse(job.createdAt) >= before;
      if (!d.origins.get(tenant, job.id)) {
        await d.origins.put(tenant, {
          jobId: job.id,
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
        { ticketId: story.ticketId, repo: story.repo, event: story.event, jobId: job.id, created, ...(delivery ? { delivery } : {}) },
        { tenant, subject: job.id },
      );
      return reply(202, {
        started: true,
        jobId: job.id,
        state: job.state,
        created,
        ticket: { ticket_id: story.ticketId, repo_name: story.repo, source: story.source, ...(story.issue ? { issue: story.issue } : {}) },
      });
    },
  });
}
