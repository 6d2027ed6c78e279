import { z } from 'zod';

/** Options of the `search` plugin (manifest `plugins.search.options`). */
export const searchOptionsSchema = z.strictObject({
  /** Segments per index before they are merged into one in the background. @default 8 */
  maxSegments: z.number().int().min(1).max(1000).default(8),
  /** Largest body of `POST /v1/indexes/{name}/documents`, in bytes (bulk streams are not bounded). @default 67108864 */
  documentsBodyBytes: z.number().int().min(1024).default(64 * 1024 * 1024),
  /** A search's time budget in milliseconds; past it the answer is 503 search_timeout. @default 10000 */
  searchTimeoutMs: z.number().int().min(1).max(600_000).default(10_000),
});

export type SearchOptions = z.output<typeof searchOptionsSchema>;
