import { z } from 'zod';

/** Options of the `search` plugin (manifest `plugins.search.options`). */
export const searchOptionsSchema = z.strictObject({
  /** Segments per index before they are merged into one in the background. @default 8 */
  maxSegments: z.number().int().min(1).max(1000).default(8),
  /** Largest body of `POST /v1/indexes/{name}/documents`, in bytes (bulk streams are not bounded). @default 67108864 */
  documentsBodyBytes: z.number().int().min(1024).default(64 * 1024 * 1024),
});

export type SearchOptions = z.output<typeof searchOptionsSchema>;
