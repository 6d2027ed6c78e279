import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
// oxlint-disable-next-line no-duplicate-imports
import type { Database, RootDatabase } from 'lmdb' with { 'resolution-mode': 'require' };

export type WorkState = 'queued' | 'claimed' | 'completed' | 'failed' | 'cancelled';

/** One job handed from the service to the workers. */
export interface WorkItem {
  /** Sortable: claims take the oldest first. */
  id: string;
  /** The agent job's name (`ticket`) and its input, run by the worker's own `ctx.jobs`. */
  name: string;
  tenant: string;
  tier: number;
  input: unknown;
  /** The service's job this item stands for. */
  origin: { jobId: string };
  /**
   * The tenant's settings the service took when it put the item (a `TenantSettingsSnapshot`: its
   * provider key sealed with the queue's own key file, never plain), used by the worker's run in
   * preference to the worker's store.
   */
  settings?: unknown;
  state: WorkState;
  /** Claims made (a claim whose lease ran out counts; the next one is a new attempt). */
  attempts: number;
  maxAttempts: number;
  worker?: string;
  leaseUntil?: number;
  /** Events the worker's job appended, relayed by the service into its own log in order. */
  events: Array<{ type: string; data: unknown }>;
  result?: unknown;
  error?: { message: string; code?: string };
  createdAt: number;
  updatedAt: number;
}

export const queueFile = 'agent-work-queue.mdb';
/** The key file (0600) that seals what items carry of a tenant's secrets: only processes that share the queue directory read it. */
export const queueKeyFile = 'queue-secrets.key';

/**
 * The work queue the service and its `tessera worker` processes share: a separate LMDB environment
 * (not the service's data directory, which one process holds) on a volume every process mounts.
 * LMDB serialises write transactions across processes with its own lock, so a claim (read the
 * oldest claimable item, write it `claimed` with this worker's id and a lease) is one synchronous
 * write transaction and two processes never claim one item. A worker renews its lease while it
 * runs; a lease that runs out (the worker died: kill -9, a lost pod) makes the item claimable again,
 * up to `maxAttempts` claims, after which it fails.
 */
export class SharedQueue {
  private readonly items: Database<WorkItem, string>;
  private seq = 0;

  private constructor(private readonly root: RootDatabase) {
    this.items = root.openDB<WorkItem, string>({ name: 'items' });
  }

  static open(dir: string): SharedQueue {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new SharedQueue(open({ path: path.join(dir, queueFile), maxDbs: 4 }));
  }

  private newId(now: number): string {
    this.seq = (this.seq + 1) % 1_000_000;
    return `w_${now.toString(36).padStart(9, '0')}_${String(this.seq).padStart(6, '0')}_${randomBytes(4).toString('hex')}`;
  }

  async put(item: Pick<WorkItem, 'name' | 'tenant' | 'tier' | 'input' | 'origin' | 'settings'> & { maxAttempts?: number }): Promise<WorkItem> {
    const now = Date.now();
    const record: WorkItem = {
      id: this.newId(now),
      name: item.name,
      tenant: item.tenant,
      tier: item.tier,
      input: item.input,
      origin: item.origin,
      ...(item.settings !== undefined ? { settings: item.settings } : {}),
      state: 'queued',
      attempts: 0,
      maxAttempts: item.maxAttempts ?? 3,
      events: [],
      createdAt: now,
      updatedAt: now,
    };
    await this.items.put(record.id, record);
    return record;
  }

  get(id: string): WorkItem | undefined {
    return this.items.get(id);
  }

  /** Items not finished, oldest first. */
  pending(): WorkItem[] {
    const out: WorkItem[] = [];
    for (const { value } of this.items.getRange()) if (value.state === 'queued' || value.state === 'claimed') out.push(value);
    return out;
  }

  /**
   * Claims the oldest item of `tiers` that is queued or whose lease ran out, in one write
   * transaction across processes. An item out of attempts fails instead of being claimed.
   */
  claim(worker: string, tiers: readonly number[], leaseMs: number): WorkItem | undefined {
    return this.items.transactionSync(() => {
      const now = Date.now();
      for (const { value } of this.items.getRange()) {
        if (!tiers.includes(value.tier)) continue;
        const expired = value.state === 'claimed' && (value.leaseUntil ?? 0) < now;
        if (value.state !== 'queued' && !expired) continue;
        if (value.attempts >= value.maxAttempts) {
          this.items.putSync(value.id, {
            ...value,
            state: 'failed',
            error: { message: `the worker's lease ran out ${value.attempts} time(s): no worker finished it`, code: 'worker_lost' },
            updatedAt: now,
          });
          continue;
        }
        const claimed: WorkItem = { ...value, state: 'claimed', worker, leaseUntil: now + leaseMs, attempts: value.attempts + 1, updatedAt: now };
        this.items.putSync(value.id, claimed);
        return claimed;
      }
      return undefined;
    });
  }

  /** Applies `change` when `worker` still holds the item's lease; false when it lost it (expired and claimed by another, or cancelled). */
  private held(id: string, worker: string, change: (item: WorkItem, now: number) => WorkItem): boolean {
    return this.items.transactionSync(() => {
      const item = this.items.get(id);
      if (!item || item.state !== 'claimed' || item.worker !== worker) return false;
      const now = Date.now();
      this.items.putSync(id, change(item, now));
      return true;
    });
  }

  renew(id: string, worker: string, leaseMs: number, events: WorkItem['events'] = []): boolean {
    return this.held(id, worker, (item, now) => ({ ...item, leaseUntil: now + leaseMs, events: [...item.events, ...events], updatedAt: now }));
  }

  finish(id: string, worker: string, outcome: { result: unknown } | { error: { message: string; code?: string } }, events: WorkItem['events'] = []): boolean {
    return this.held(id, worker, (item, now) => ({
      ...item,
      ...('error' in outcome ? { state: 'failed' as const, error: outcome.error } : { state: 'completed' as const, result: outcome.result }),
      events: [...item.events, ...events],
      leaseUntil: undefined,
      updatedAt: now,
    }));
  }

  /** A worker shutting down hands the item back: queued again at once (the claim still counts as an attempt). */
  release(id: string, worker: string): boolean {
    return this.held(id, worker, (item, now) => ({ ...item, state: 'queued', worker: undefined, leaseUntil: undefined, updatedAt: now }));
  }

  /** The service gave up on the item (its job was cancelled): a worker holding it sees the lease lost at its next renewal. */
  cancel(id: string): boolean {
    return this.items.transactionSync(() => {
      const item = this.items.get(id);
      if (!item || item.state === 'completed' || item.state === 'failed' || item.state === 'cancelled') return false;
      this.items.putSync(id, { ...item, state: 'cancelled', updatedAt: Date.now() });
      return true;
    });
  }

  /** Removes a finished item (the service does once it relayed the outcome). */
  async remove(id: string): Promise<void> {
    await this.items.remove(id);
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
