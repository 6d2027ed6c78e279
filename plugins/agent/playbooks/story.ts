import picomatch from 'picomatch';
import { validate, z } from 'tessera-runtime/plugin';
import type { PlaybookConfig } from './config.js';

/** A story from any tracker, normalised: what the listener rules look at and what the ticket job gets. */
export interface Story {
  /** The tracker's event: `assigned`, `labeled`, `opened` (anything else is never listened to). */
  event: string;
  source: 'github' | 'story';
  ticketId: string;
  repo: string;
  title: string;
  description: string;
  labels: string[];
  assignees: string[];
  /** The label the event added (`labeled`) or the login it assigned (`assigned`). */
  label?: string;
  assignee?: string;
  url?: string;
  /** The issue of `repo` on the forge that progress comments go to. */
  issue?: number;
}

const label = z.string().min(1).max(200);

/** The generic assigned-story shape (docs/agent-api.md, "Story webhook"). */
export const genericStory = z.strictObject({
  event: z.string().min(1).max(50),
  story: z.strictObject({
    id: z.string().min(1).max(200),
    repo: z.string().min(3).max(201),
    title: z.string().min(1).max(1000),
    description: z.string().max(100_000).default(''),
    labels: z.array(label).max(100).default([]),
    assignees: z.array(label).max(100).default([]),
    url: z.url().optional(),
    issue: z.number().int().min(1).optional(),
  }),
  /** The label an `labeled` event added, the login an `assigned` event assigned. */
  label: label.optional(),
  assignee: label.optional(),
});

const login = z.looseObject({ login: z.string().min(1) });

/** The part of GitHub's `issues` webhook event the listener reads. */
export const githubIssuesEvent = z.looseObject({
  action: z.string().min(1),
  issue: z.looseObject({
    number: z.number().int().min(1),
    title: z.string(),
    body: z.string().nullable().optional(),
    html_url: z.string().optional(),
    labels: z.array(z.union([z.looseObject({ name: z.string() }), z.string()])).default([]),
    assignees: z.array(login).nullable().optional(),
    assignee: login.nullable().optional(),
    pull_request: z.unknown().optional(),
  }),
  repository: z.looseObject({ full_name: z.string().min(3) }),
  label: z.looseObject({ name: z.string() }).optional(),
  assignee: login.nullable().optional(),
});

/**
 * Reads either shape: GitHub's when `X-GitHub-Event` says `issues` (or the body has `issue` and
 * `repository`), the generic one otherwise. Invalid bodies are 400 with the field's path.
 */
export function normaliseStory(body: unknown, githubEvent: string | null): Story {
  const looksGithub = githubEvent === 'issues' || (typeof body === 'object' && body !== null && 'issue' in body && 'repository' in body);
  if (looksGithub) {
    const e = validate(githubIssuesEvent, body, 'GitHub issues event', 'body');
    const assignees = [...(e.issue.assignees ?? []), ...(e.issue.assignee ? [e.issue.assignee] : [])].map((a) => a.login);
    return {
      event: e.action,
      source: 'github',
      ticketId: `${e.repository.full_name}#${e.issue.number}`,
      repo: e.repository.full_name,
      title: e.issue.title,
      description: e.issue.body ?? '',
      labels: e.issue.labels.map((l) => (typeof l === 'string' ? l : l.name)),
      assignees: [...new Set(assignees)],
      ...(e.label ? { label: e.label.name } : {}),
      ...(e.assignee ? { assignee: e.assignee.login } : {}),
      ...(e.issue.html_url ? { url: e.issue.html_url } : {}),
      issue: e.issue.number,
    };
  }
  const g = validate(genericStory, body, 'story event', 'body');
  return {
    event: g.event,
    source: 'story',
    ticketId: g.story.id,
    repo: g.story.repo,
    title: g.story.title,
    description: g.story.description,
    labels: g.story.labels,
    assignees: g.story.assignees,
    ...(g.label ? { label: g.label } : {}),
    ...(g.assignee ? { assignee: g.assignee } : {}),
    ...(g.story.url ? { url: g.story.url } : {}),
    ...(g.story.issue ? { issue: g.story.issue } : {}),
  };
}

export type SkipReason = 'listener_disabled' | 'event_not_listened' | 'repository_not_listened' | 'label_not_matched' | 'assignee_not_matched';

const fold = (s: string) => s.toLowerCase();

/**
 * Whether the listener rules start a job for this story; the first rule that fails is the reason.
 * Labels and logins compare case-insensitively (as GitHub's do); repository patterns are globs per part.
 */
export function matchStory(story: Story, rules: PlaybookConfig['listener']): { match: true } | { match: false; reason: SkipReason; message: string } {
  if (!rules.enabled) return { match: false, reason: 'listener_disabled', message: 'the issue listener is disabled' };
  if (!(rules.events as string[]).includes(story.event)) {
    return {
      match: false,
      reason: 'event_not_listened',
      message: `"${story.event}" events are not listened to (listening to: ${rules.events.join(', ') || 'none'})`,
    };
  }
  if (rules.repositories.length > 0 && !rules.repositories.some((p) => picomatch.isMatch(fold(story.repo), fold(p), { dot: true }))) {
    return { match: false, reason: 'repository_not_listened', message: `repository ${story.repo} matches none of ${rules.repositories.join(', ')}` };
  }
  if (rules.labels.length > 0) {
    const wanted = new Set(rules.labels.map(fold));
    // A `labeled` event starts a job when the label it added is one listened to; other events look at all labels.
    const seen = story.event === 'labeled' && story.label !== undefined ? [story.label] : story.labels;
    if (!seen.some((l) => wanted.has(fold(l)))) {
      return { match: false, reason: 'label_not_matched', message: `none of the labels [${seen.join(', ')}] is one of ${rules.labels.join(', ')}` };
    }
  }
  if (rules.assignees.length > 0) {
    const wanted = new Set(rules.assignees.map(fold));
    const seen = story.event === 'assigned' && story.assignee !== undefined ? [story.assignee] : story.assignees;
    if (!seen.some((a) => wanted.has(fold(a)))) {
      return { match: false, reason: 'assignee_not_matched', message: `assignee [${seen.join(', ')}] is none of ${rules.assignees.join(', ')}` };
    }
  }
  return { match: true };
}
