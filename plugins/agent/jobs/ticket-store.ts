import type { EventLog, StoreNamespace } from 'tessera-runtime/plugin';
import type { RoleId } from '../roles/roles.js';

export interface Ticket {
  ticket_id: string;
  /** `owner/repo` */
  repo_name: string;
  title: string;
  description: string;
  labels?: string[];
  source?: 'webhook' | 'story' | 'api';
  url?: string;
}

/** The input of the `ticket` job (the contract's shape, plus the record a later run continues). */
export interface TicketJobInput {
  ticket: Ticket;
  user?: string;
  /** The ticket job record this run continues (absent on the first run: the record's id is that run's job id). */
  jobId?: string;
  /** Remediation options from `POST /api/v1/agent/remediate`. */
  options?: { files?: string[]; tier?: number; maxIterations?: number };
  /** Set by the dead-letter queue on a replay. */
  replayOf?: string;
}

export const ticketStates = [
  'queued',
  'triaging',
  'awaiting_clarification',
  'planning',
  'patching',
  'testing',
  'proposing',
  'completed',
  'failed',
  'cancelled',
] as const;
export type TicketState = (typeof ticketStates)[number];
export const finalTicketStates: ReadonlySet<TicketState> = new Set(['completed', 'failed', 'cancelled']);

export interface Question {
  id: string;
  question: string;
  choices: Array<{ id: string; label: string }>;
  allowFreeText: boolean;
}

export interface Answer {
  questionId: string;
  choiceId?: string;
  text?: string;
}

export interface TimelineEntry {
  state: TicketState;
  at: string;
  role?: string;
  model?: string;
  tier?: number;
  costUsd?: number;
  tokens?: number;
  note?: string;
}

export interface TestsOutcome {
  passed: boolean;
  exitCode: number | null;
  output: string;
  command: string[];
  /** `true` when the repository has no test command the sandbox could detect. */
  skipped?: boolean;
}

export interface Attempt {
  n: number;
  tier: number;
  model: string | null;
  diff: string;
  verified: boolean;
  verifyError?: string;
  tests?: TestsOutcome;
  costUsd: number;
  at: string;
}

export interface TicketJob {
  id: string;
  tenant: string;
  user: string;
  ticket: Ticket;
  state: TicketState;
  role: RoleId | null;
  tier: number | null;
  createdAt: string;
  updatedAt: string;
  costUsd: number;
  tokens: number;
  timeline: TimelineEntry[];
  attempts: Attempt[];
  triage?: { actionable: boolean; summary: string; role: RoleId; roleSource: 'model' | 'heuristic'; files: string[] };
  questions?: Question[];
  answers?: Answer[];
  /** The branch and commit the job works from, fixed at its first run (and again on a replay). */
  base?: { branch: string; commit: string };
  plan?: { files: string[]; declarations: string[]; maxIterations: number };
  options?: TicketJobInput['options'];
  diff?: string;
  tests?: TestsOutcome;
  branch?: string;
  commit?: string;
  pullRequest?: { number: number; url: string };
  error?: { code: string; message: string };
  /** Every `ctx.jobs` run of this record, oldest first; the last is the active or latest one. */
  runs: string[];
  replays?: string[];
}

/** Thrown when a running job finds its record cancelled under it. */
export class TicketCancelled extends Error {
  readonly code = 'cancelled';
  constructor(id: string) {
    super(`Job ${id} was cancelled.`);
  }
}

/** What `GET /api/v1/jobs` lists. */
export function summaryOf(r: TicketJob) {
  return {
    id: r.id,
    state: r.state,
    ticket: { ticket_id: r.ticket.ticket_id, repo_name: r.ticket.repo_name, title: r.ticket.title },
    role: r.role,
    tier: r.tier,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    costUsd: r.costUsd,
    ...(r.pullRequest ? { pullRequest: r.pullRequest } : {}),
  };
}

/** What `GET /api/v1/jobs/{id}` answers. */
export function detailOf(r: TicketJob) {
  const { tenant: _t, user: _u, options: _o, ...rest } = r;
  return { ...summaryOf(r), ...rest };
}

/**
 * Ticket job records, per tenant: `tickets` holds `[tenant, id]` → record, `ticket-index` maps
 * `[tenant, ticket_id]` to the record's id (so a redelivered webhook finds its job). Every state
 * change is saved before the `ticket.state` event is appended, so a restarted process resumes from
 * the last saved step.
 */
export class TicketStore {
  private readonly db;
  private readonly index;

  constructor(
    store: StoreNamespace,
    private readonly events: EventLog,
  ) {
    this.db = store.db('tickets');
    this.index = store.db('ticket-index');
  }

  get(tenant: string, id: string): TicketJob | undefined {
    return this.db.get([tenant, id]) as TicketJob | undefined;
  }

  idOf(tenant: string, ticketId: string): string | undefined {
    return this.index.get([tenant, ticketId]) as string | undefined;
  }

  /** The record of `id`, created `queued` from the ticket when it does not exist yet (once, whoever comes first). */
  async ensure(
    tenant: string,
    id: string,
    ticket: Ticket,
    user: string,
    options?: TicketJobInput['options'],
  ): Promise<{ record: TicketJob; created: boolean }> {
    let created = false;
    await this.db.transaction(() => {
      if (this.db.get([tenant, id])) return;
      const at = new Date().toISOString();
      const record: TicketJob = {
        id,
        tenant,
        user,
        ticket,
        state: 'queued',
        role: null,
        tier: null,
        createdAt: at,
        updatedAt: at,
        costUsd: 0,
        tokens: 0,
        timeline: [{ state: 'queued', at }],
        attempts: [],
        ...(options ? { options } : {}),
        runs: [id],
      };
      void this.db.put([tenant, id], record);
      void this.index.put([tenant, ticket.ticket_id], id);
      created = true;
    });
    if (created) await this.events.append('ticket.state', { jobId: id, state: 'queued', previous: null }, { tenant, subject: id });
    return { record: this.get(tenant, id)!, created };
  }

  /** Writes a record made elsewhere (a worker adopting the service's record from the shared queue) with its ticket index. */
  async adopt(r: TicketJob): Promise<void> {
    await this.db.transaction(() => {
      void this.db.put([r.tenant, r.id], r);
      void this.index.put([r.tenant, r.ticket.ticket_id], r.id);
    });
  }

  /** Saves a record; refuses (`TicketCancelled`) to overwrite one cancelled meanwhile by `POST /api/v1/jobs/{id}/cancel`. */
  async save(r: TicketJob): Promise<void> {
    r.updatedAt = new Date().toISOString();
    let cancelled = false;
    await this.db.transaction(() => {
      const current = this.db.get([r.tenant, r.id]) as TicketJob | undefined;
      if (current?.state === 'cancelled' && r.state !== 'cancelled') cancelled = true;
      else void this.db.put([r.tenant, r.id], r);
    });
    if (cancelled) throw new TicketCancelled(r.id);
  }

  /** Moves the record to `state` (a timeline entry, saved), then appends `ticket.state`. */
  async transition(r: TicketJob, state: TicketState, extra: { note?: string } = {}): Promise<void> {
    const previous = r.state;
    r.state = state;
    r.timeline.push({ state, at: new Date().toISOString(), ...(r.role ? { role: r.role } : {}), ...(extra.note ? { note: extra.note } : {}) });
    await this.save(r);
    await this.events.append(
      'ticket.state',
      { jobId: r.id, state, previous, ...(r.role ? { role: r.role } : {}), ...(extra.note ? { note: extra.note } : {}) },
      { tenant: r.tenant, subject: r.id },
    );
  }

  /** Adds a model call's cost and tokens to the record and to the current timeline entry. */
  charge(r: TicketJob, call: { model: string; tier: number; costUsd: number; tokens: number }): void {
    r.costUsd += call.costUsd;
    r.tokens += call.tokens;
    r.tier = call.tier;
    const entry = r.timeline.at(-1);
    if (entry) {
      entry.model = call.model;
      entry.tier = call.tier;
      entry.costUsd = (entry.costUsd ?? 0) + call.costUsd;
      entry.tokens = (entry.tokens ?? 0) + call.tokens;
    }
  }

  /** A tenant's records, newest first. */
  list(tenant: string, o: { state?: TicketState | undefined; limit: number; cursor?: string | undefined }): { jobs: TicketJob[]; next?: string } {
    const out: TicketJob[] = [];
    const start = o.cursor ? [tenant, o.cursor] : [tenant, '\uffff'];
    for (const { value } of this.db.getRange({ start, end: [tenant], reverse: true })) {
      const r = value as TicketJob;
      if (o.cursor && r.id === o.cursor) continue;
      if (o.state && r.state !== o.state) continue;
      out.push(r);
      if (out.length > o.limit) break;
    }
    const page = out.slice(0, o.limit);
    return out.length > o.limit ? { jobs: page, next: page.at(-1)!.id } : { jobs: page };
  }
}
