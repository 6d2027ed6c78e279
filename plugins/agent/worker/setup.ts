import path from 'node:path';
import type { PluginContext } from 'tessera-runtime/plugin';
import type { AgentOptions } from '../options.js';
import { SecretBox } from '../secret-box.js';
import { isSnapshot, type SettingsOverlay, type TenantSettingsSnapshot } from '../tenant-settings.js';
import { WorkerLoop } from './loop.js';
import { Offload, type Carry } from './offload.js';
import { queueKeyFile, SharedQueue } from './queue.js';

/** The tenant settings an offloaded job carries: taken on the service (`snapshot`), put in force on the worker (`overlay`). */
export interface WorkerSettings {
  overlay: SettingsOverlay;
  snapshot(tenant: string, queueBox: SecretBox): TenantSettingsSnapshot;
}

/** Where the shared queue lives when `workers.queueDir` is absent: beside the data directory. */
export function defaultQueueDir(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}-agent-queue`);
}

/**
 * The shared work queue: opened when the service offloads some tiers (`workers.tiers`) or this
 * process is a worker (`worker`, set by `tessera worker`). Answers the service's `Offload`, which
 * the ticket job's handler goes through (`offloadable`).
 */
export function setupWorkers(ctx: PluginContext<AgentOptions>, settings?: WorkerSettings): Offload {
  const o = ctx.config.workers;
  const role = ctx.config.worker;
  const dir = path.resolve(o.queueDir ?? defaultQueueDir(ctx.app.dataDir));
  const queue = o.tiers.length > 0 || role ? SharedQueue.open(dir) : undefined;
  // The queue's own key (0600, made by the first process): it seals a tenant's provider key for
  // the trip through the queue; a worker opens it in memory for the one run.
  const box = queue && settings ? new SecretBox(path.join(dir, queueKeyFile)) : undefined;
  const carry: Carry | undefined =
    box && settings
      ? {
          take: (tenant) => settings.snapshot(tenant, box),
          apply: (tenant, carried, fn) => (isSnapshot(carried) ? settings.overlay.run(tenant, carried, (sealed) => box.open(sealed), fn) : fn()),
          ...(role ? { items: queue } : {}),
        }
      : undefined;
  // A worker runs what it claims itself: it never offloads again.
  const offload = new Offload(role ? undefined : queue, { tiers: o.tiers, pollMs: o.pollMs, maxAttempts: o.maxAttempts }, ctx.events, carry);
  if (queue && role) {
    const loop = new WorkerLoop(queue, ctx.jobs, ctx.events, ctx.log, { ...role, leaseMs: o.leaseMs, pollMs: o.pollMs });
    const stop = new AbortController();
    let running: Promise<void> | undefined;
    ctx.onStart(() => {
      ctx.log.info({ worker: role.id, tiers: role.tiers, queue: dir }, 'agent worker takes jobs from the shared queue');
      running = loop.run(stop.signal).catch((err) => ctx.log.error({ err }, 'the worker loop stopped'));
    });
    ctx.onStop(async () => {
      stop.abort();
      await running;
    });
  }
  if (queue) ctx.onStop(() => queue.close());
  return offload;
}
