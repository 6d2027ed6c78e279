import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A FIXTURE, not the agent's job pipeline: a local server answering `/api/v1/jobs*` and the
 * `ticket.*` events of the telemetry SSE feed in the shapes the real pipeline answers (`detailOf`
 * in plugins/agent/jobs/ticket-store.ts: tokens a number, a test command an argv array), and
 * forwarding every other request (the console's page, scripts and the rest of the API) to a real
 * agent. It drives states the real pipeline reaches only slowly or by chance (several jobs in every
 * column, a diff with markup, a refused answer); ui-jobs-pipeline.test.ts runs the same screens
 * against the real pipeline.
 */

export interface TimelineStep {
  state: string;
  at: string;
  role?: string;
  model?: string;
  tier?: number;
  costUsd?: number;
  tokens?: number;
  note?: string;
}

export interface FixtureJob {
  id: string;
  state: string;
  ticket: { ticket_id: string; repo_name: string; title: string; description: string; labels?: string[]; source?: string; url?: string };
  role: string | null;
  tier: number | null;
  createdAt: string;
  updatedAt: string;
  costUsd: number;
  pullRequest?: { number: number; url: string };
  timeline: TimelineStep[];
  attempts: Array<{
    n: number;
    tier: number;
    model: string | null;
    diff: string;
    verified: boolean;
    verifyError?: string;
    tests?: { passed: boolean; exitCode: number; output: string; command: string[] };
    costUsd: number;
    at: string;
  }>;
  questions?: Array<{ id: string; question: string; choices: Array<{ id: string; label: string }>; allowFreeText: boolean }>;
  answers?: Array<{ questionId: string; choiceId?: string; text?: string }>;
  diff?: string;
  tests?: { passed: boolean; exitCode: number | null; output: string; command: string[] };
  branch?: string;
  commit?: string;
  error?: { code: string; message: string };
}

const summaryOf = (j: FixtureJob) => ({
  id: j.id,
  state: j.state,
  ticket: { ticket_id: j.ticket.ticket_id, repo_name: j.ticket.repo_name, title: j.ticket.title },
  role: j.role,
  tier: j.tier,
  createdAt: j.createdAt,
  updatedAt: j.updatedAt,
  costUsd: j.costUsd,
  ...(j.pullRequest ? { pullRequest: j.pullRequest } : {}),
});

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export class JobsContractFixture {
  readonly jobs = new Map<string, FixtureJob>();
  /** Every `POST /api/v1/jobs/{id}/answers` body received, as sent. */
  readonly answersReceived: Array<{ jobId: string; body: unknown }> = [];
  readonly cancels: string[] = [];
  /** What an answered job does next (the pipeline resuming), run after the answer is acknowledged. */
  onAnswered: (job: FixtureJob) => void = () => undefined;
  private readonly streams = new Set<{ res: ServerResponse; job?: string }>();
  private eventId = 1000;
  private server?: Server;
  url = '';

  constructor(private readonly upstream: string) {}

  /** Open `ticket.*` feed connections (a page listening). */
  get listeners(): number {
    return this.streams.size;
  }

  add(job: FixtureJob): void {
    this.jobs.set(job.id, job);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.streams) s.res.end();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** A `ticket.*` event on the feed, in the runtime's SSE form (`id`, `event`, `data` the whole entry). */
  emit(type: string, jobId: string, data: Record<string, unknown>): void {
    const entry = { id: ++this.eventId, type, time: new Date().toISOString(), tenant: 'default', subject: jobId, data: { jobId, ...data } };
    for (const s of this.streams) if (!s.job || s.job === jobId) s.res.write(`id: ${entry.id}\nevent: ${type}\ndata: ${JSON.stringify(entry)}\n\n`);
  }

  /** Moves a job to `state` as the pipeline would: timeline step, `ticket.state` event. */
  setState(id: string, state: string, step: Partial<TimelineStep> = {}, extra: Partial<FixtureJob> = {}): void {
    const job = this.jobs.get(id)!;
    const previous = job.state;
    const at = new Date().toISOString();
    Object.assign(job, extra, { state, updatedAt: at });
    if (step.role) job.role = step.role;
    if (step.tier) job.tier = step.tier;
    if (step.costUsd) job.costUsd += step.costUsd;
    job.timeline.push({ state, at, ...step });
    this.emit('ticket.state', id, { state, previous, ...(step.role ? { role: step.role } : {}), ...(step.note ? { note: step.note } : {}) });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const p = url.pathname;
    if (
      req.method === 'GET' &&
      p === '/api/v1/telemetry/events' &&
      (req.headers.accept ?? '').includes('text/event-stream') &&
      url.searchParams.get('kind')?.startsWith('ticket.')
    ) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': connected\n\n');
      const s = { res, job: url.searchParams.get('job') ?? undefined };
      this.streams.add(s);
      req.on('close', () => this.streams.delete(s));
      return;
    }
    if (p === '/api/v1/jobs' && req.method === 'GET') {
      const state = url.searchParams.get('state');
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const all = [...this.jobs.values()].filter((j) => !state || j.state === state).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      const page = all.slice(from, from + limit);
      send(res, 200, { ok: true, jobs: page.map(summaryOf), ...(from + limit < all.length ? { next: String(from + limit) } : {}) });
      return;
    }
    const m = /^\/api\/v1\/jobs\/([^/]+)(\/answers|\/cancel)?$/.exec(p);
    if (m) {
      const job = this.jobs.get(decodeURIComponent(m[1]!));
      if (!job) return send(res, 404, { ok: false, error: { code: 'job_not_found', message: 'No such job.' } });
      if (req.method === 'GET' && !m[2]) return send(res, 200, { ok: true, job });
      if (req.method === 'POST' && m[2]) {
        let raw = '';
        req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
        req.on('end', () => {
          if (m[2] === '/cancel') {
            this.cancels.push(job.id);
            this.setState(job.id, 'cancelled', { note: 'cancelled by a user' });
            return send(res, 200, { ok: true, jobId: job.id, state: 'cancelled' });
          }
          const body = JSON.parse(raw || '{}') as { answers?: Array<{ questionId: string; choiceId?: string; text?: string }> };
          this.answersReceived.push({ jobId: job.id, body });
          if (job.state !== 'awaiting_clarification')
            return send(res, 409, { ok: false, error: { code: 'job_not_awaiting', message: `The job is ${job.state}, not awaiting clarification.` } });
          job.answers = body.answers ?? [];
          this.setState(job.id, 'planning', { role: 'planner', note: 'answers received' });
          send(res, 200, { ok: true, jobId: job.id, state: 'planning' });
          setTimeout(() => this.onAnswered(job), 200);
        });
        return;
      }
    }
    this.forward(req, res);
  }

  /** Everything else goes to the real agent, streamed both ways. */
  private forward(req: IncomingMessage, res: ServerResponse): void {
    const target = new URL(req.url ?? '/', this.upstream);
    const out = httpRequest(
      target,
      {
        method: req.method,
        // One origin to the browser: the agent sees its own host and origin, as behind a reverse proxy.
        headers: { ...req.headers, host: target.host, ...(req.headers.origin ? { origin: target.origin } : {}) },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.writeHead(502).end());
    req.pipe(out);
  }
}
