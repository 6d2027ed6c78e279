import { z } from 'tessera-runtime/plugin';

/** Options of ticket jobs and the remediation loop (`plugins.agent.options.tickets`). */
export const ticketOptions = {
  tickets: z
    .strictObject({
      /** Ticket jobs running at once in this process, all tenants together. @default 4 */
      concurrency: z.number().int().min(1).max(64).default(4),
      /** Ticket jobs of one tenant running at once; the others wait `queued` without holding a slot. @default 2 */
      perTenant: z.number().int().min(1).max(64).default(2),
      /** Patching iterations of a job when neither the request nor the tenant's engagement mode says otherwise. @default 4 */
      maxIterations: z.number().int().min(1).max(20).optional(),
      /** Wall-clock limit of one run of a job (its model calls and test runs together). @default 3600000 */
      timeoutMs: z.number().int().min(1000).default(3_600_000),
      /** Characters of repository source put into one prompt (the files the code graph points at). @default 60000 */
      contextChars: z.number().int().min(2000).max(1_000_000).default(60_000),
      /** A synchronous `POST /api/v1/agent/remediate` runs at most this many iterations; more asks for a job. @default 3 */
      syncMaxIterations: z.number().int().min(1).max(20).default(3),
    })
    .prefault({}),
};
