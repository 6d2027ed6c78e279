import { z, type StoreNamespace } from 'tessera-runtime/plugin';

const repoPattern = z
  .string()
  .min(3)
  .max(201)
  .regex(/^[A-Za-z0-9._*-]+\/[A-Za-z0-9._*-]+$/, 'expected owner/repo (`*` matches any run of characters in a part)');
const name = z.string().min(1).max(200);
const glob = z.string().min(1).max(500);
const states = ['queued', 'triaging', 'awaiting_clarification', 'planning', 'patching', 'testing', 'proposing', 'completed', 'failed', 'cancelled'] as const;
const listenerEvents = ['assigned', 'labeled', 'opened'] as const;

/** Which tracker events start a ticket job. Empty lists mean "any". */
const listenerShape = {
  enabled: z.boolean(),
  events: z.array(z.enum(listenerEvents)).max(3),
  /** The story must carry at least one of these labels. */
  labels: z.array(name).max(100),
  /** The story must be assigned to one of these (tracker logins); for `assigned` events, the assignee of the event. */
  assignees: z.array(name).max(100),
  /** `owner/repo` patterns the story's repository must match. */
  repositories: z.array(repoPattern).max(500),
};

/** What is posted back to the ticket. */
const commentShape = {
  enabled: z.boolean(),
  /** Ticket states that post a progress comment. */
  states: z.array(z.enum(states)).max(states.length),
  /** Post the pull request's link when the job opens it. */
  pullRequest: z.boolean(),
  /** Post the auto-merge decision (merged, or why it waits for a human) on the ticket and the pull request. */
  mergeDecision: z.boolean(),
};

/** When a proposed pull request is merged without a human. */
const mergeShape = {
  enabled: z.boolean(),
  requireTestsPassed: z.boolean(),
  /** The review (deterministic checks, then the model when a provider is configured) must answer `approve`. */
  requireApproval: z.boolean(),
  /** At most this many changed lines (additions + deletions). */
  maxChangedLines: z.number().int().min(1).max(1_000_000),
  maxFiles: z.number().int().min(1).max(10_000),
  /** Globs (picomatch, `dot: true`) of paths never merged automatically. */
  protectedPaths: z.array(glob).max(500),
  /** The ticket must carry every one of these labels. */
  requiredLabels: z.array(name).max(100),
  method: z.enum(['merge', 'squash', 'rebase']),
};

const reviewShape = {
  /** What the review agent asks for the model's review: a tier (`tier:6`), a task class or a model id. */
  model: z.string().min(1).max(200),
  /** Post the review on the pull request (`POST /repos/{o}/{r}/pulls/{n}/reviews`). */
  post: z.boolean(),
};

export const playbookConfigSchema = z.strictObject({
  listener: z.strictObject(listenerShape),
  autoComment: z.strictObject(commentShape),
  autoMerge: z.strictObject(mergeShape),
  review: z.strictObject(reviewShape),
});
export type PlaybookConfig = z.output<typeof playbookConfigSchema>;

/** The body of `POST /api/v1/playbooks/config`: any subset of the fields; each given field replaces the stored one. */
export const playbookConfigPatch = z.strictObject({
  listener: z.strictObject(listenerShape).partial().optional(),
  autoComment: z.strictObject(commentShape).partial().optional(),
  autoMerge: z.strictObject(mergeShape).partial().optional(),
  review: z.strictObject(reviewShape).partial().optional(),
  /** `true` forgets the stored configuration first, so the body applies to the defaults. */
  reset: z.boolean().optional(),
  /** The secret GitHub signs webhook deliveries with (write-only, sealed at rest); `null` removes it. */
  githubWebhookSecret: z.string().min(16).max(500).nullable().optional(),
});
export type PlaybookConfigPatch = z.output<typeof playbookConfigPatch>;

/** The defaults a tenant starts with (docs/agent-api.md, "Playbooks"): listen and comment, never merge until told to. */
export const defaultPlaybookConfig: PlaybookConfig = {
  listener: { enabled: true, events: ['assigned', 'labeled'], labels: [], assignees: [], repositories: [] },
  autoComment: {
    enabled: true,
    states: ['triaging', 'awaiting_clarification', 'testing', 'completed', 'failed', 'cancelled'],
    pullRequest: true,
    mergeDecision: true,
  },
  autoMerge: {
    enabled: false,
    requireTestsPassed: true,
    requireApproval: true,
    maxChangedLines: 400,
    maxFiles: 20,
    protectedPaths: [
      '.github/**',
      '.gitlab-ci.yml',
      '.ci/**',
      '**/Dockerfile',
      '**/*.lock',
      '**/package-lock.json',
      '**/migrations/**',
      '**/*.pem',
      '**/*.key',
    ],
    requiredLabels: [],
    method: 'squash',
  },
  review: { model: 'task:code-review', post: true },
};

interface Stored {
  config: PlaybookConfig;
  updatedAt: string;
}

/** Each tenant's playbook configuration, in the plugin's store (`playbooks-config`: tenant -> config). */
export class PlaybookConfigs {
  private readonly db;

  constructor(store: StoreNamespace) {
    this.db = store.db('playbooks-config');
  }

  get(tenant: string): PlaybookConfig {
    return (this.db.get(tenant) as Stored | undefined)?.config ?? defaultPlaybookConfig;
  }

  view(tenant: string): { config: PlaybookConfig; updatedAt: string | null; defaults: boolean } {
    const s = this.db.get(tenant) as Stored | undefined;
    return { config: s?.config ?? defaultPlaybookConfig, updatedAt: s?.updatedAt ?? null, defaults: !s };
  }

  async update(tenant: string, patch: PlaybookConfigPatch): Promise<ReturnType<PlaybookConfigs['view']>> {
    const base = patch.reset ? defaultPlaybookConfig : this.get(tenant);
    const config: PlaybookConfig = {
      listener: { ...base.listener, ...patch.listener },
      autoComment: { ...base.autoComment, ...patch.autoComment },
      autoMerge: { ...base.autoMerge, ...patch.autoMerge },
      review: { ...base.review, ...patch.review },
    };
    await this.db.put(tenant, { config: playbookConfigSchema.parse(config), updatedAt: new Date().toISOString() } satisfies Stored);
    return this.view(tenant);
  }
}
