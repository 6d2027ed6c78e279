import { z } from 'tessera-runtime/plugin';

const tier = z.number().int().min(1).max(10);

/** Options of the shared work queue: which tiers the service hands to `tessera worker` processes, and the worker role itself. */
export const workerOptions = {
  workers: z
    .strictObject({
      /** The shared queue's directory (a volume every process mounts). @default "<dataDir>/../<dataDir name>-agent-queue" */
      queueDir: z.string().min(1).optional(),
      /** Tiers whose jobs the service hands to workers instead of running them itself. @default [] (everything runs in the service) */
      tiers: z.array(tier).max(10).default([]),
      /** A worker's lease on an item; renewed every third of it while the job runs. @default 30000 */
      leaseMs: z.number().int().min(500).max(3_600_000).default(30_000),
      /** How often the service looks at an offloaded item, and an idle worker at the queue. @default 500 */
      pollMs: z.number().int().min(10).max(60_000).default(500),
      /** Claims of one item before it fails (a worker that dies loses its lease; the next claim is a new attempt). @default 3 */
      maxAttempts: z.number().int().min(1).max(20).default(3),
    })
    .prefault({}),
  /** Set by `tessera worker`: this process takes jobs of `tiers` from the shared queue. */
  worker: z
    .strictObject({
      id: z.string().min(1).max(200),
      tiers: z.array(tier).min(1).max(10),
      /** Items run at once. @default 1 */
      concurrency: z.number().int().min(1).max(64).default(1),
    })
    .optional(),
};
