import { z } from 'tessera-runtime/plugin';

export const workflowOptions = z
  .object({
    dbPath: z.string().min(1).optional().describe("SQLite file for workflows and traces (`.db`/`.sqlite`); unset: the runtime's LMDB store."),
    protectInvoke: z.boolean().default(false).describe('Workflow routes require a key with `api:invoke`.'),
    ui: z.boolean().default(true).describe('Serve the hub UI (`plugins/workflow/ui`) at `/` of the listener.'),
    defaultTenant: z.string().min(1).max(63).default('default'),
    workflows: z.string().min(1).optional().describe('A JSON spec, a DSL module, or a directory of them, registered in `defaultTenant` at start.'),
    limits: z
      .object({
        maxInputBytes: z
          .number()
          .int()
          .min(1024)
          .max(16 * 1024 * 1024)
          .default(256 * 1024),
        maxSteps: z.number().int().min(1).max(10_000).default(200),
        maxDurationMs: z.number().int().min(10).max(3_600_000).default(30_000),
      })
      .strict()
      .prefault({}),
    retention: z
      .object({
        maxAgeDays: z.number().min(0).max(3650).default(7),
        maxPerTenant: z.number().int().min(1).default(10_000),
        maxStepDataBytes: z
          .number()
          .int()
          .min(64)
          .default(16 * 1024),
        /** Prune a tenant inline after this many executions in it (besides the scheduled job). */
        pruneEvery: z.number().int().min(1).default(100),
        batch: z.number().int().min(1).max(10_000).default(500),
        interval: z.string().default('1m'),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type WorkflowOptions = z.output<typeof workflowOptions>;
