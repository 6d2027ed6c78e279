import { z } from 'zod';
import { EMBEDDER_NAME } from './embedders/embedder-setting.js';
import { imageOptionsShape } from './image/image-options.js';

/** A remote embedder the operator defines; indexes name it in `settings.embedder`. */
const remoteEmbedderSchema = z.strictObject({
  type: z.literal('openai'),
  /** Base URL up to the version, e.g. "https://api.openai.com/v1"; `/embeddings` is appended. */
  baseUrl: z.string().url(),
  model: z.string().min(1),
  /** Environment variable holding the API key (the key itself is never stored). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  /** Vectors it makes; an index naming it must have this vectorDimensions. */
  dimensions: z.number().int().min(1).max(4096).optional(),
  batchSize: z.number().int().min(1).max(2048).default(64),
  /** Per request, in milliseconds. @default 30000 */
  timeoutMs: z.number().int().min(100).max(600_000).optional(),
});

/** Options of the `search` plugin (manifest `plugins.search.options`). */
export const searchOptionsSchema = z.strictObject({
  /** `mediaRoot`, `allowRemoteImages`, `images`: image metadata (image/image-options.ts). */
  ...imageOptionsShape,
  /** Segments per index before they are merged into one in the background. @default 8 */
  maxSegments: z.number().int().min(1).max(1000).default(8),
  /** Largest body of `POST /v1/indexes/{name}/documents`, in bytes (bulk streams are not bounded). @default 67108864 */
  documentsBodyBytes: z
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  /** A search's time budget in milliseconds; past it the answer is 503 search_timeout. @default 10000 */
  searchTimeoutMs: z.number().int().min(1).max(600_000).default(10_000),
  /** Past searches kept per index for `query` suggestions; past it the least used and oldest go. @default 10000 */
  autocompleteMaxQueries: z.number().int().min(0).max(1_000_000).default(10_000),
  /** Remote embedders by name (`builtin` is taken). Their endpoints are trusted: only the operator writes them. @default {} */
  embedders: z
    .record(z.string(), remoteEmbedderSchema)
    .default({})
    .superRefine((embedders, issue) => {
      for (const name of Object.keys(embedders)) {
        if (!EMBEDDER_NAME.test(name) || name === 'builtin')
          issue.addIssue({
            code: 'custom',
            path: [name],
            message: `"${name}" is not an embedder name: 1-64 of a-z, 0-9, _ and -, starting with a letter or digit, and not "builtin"`,
          });
      }
    }),
});

export type SearchOptions = z.output<typeof searchOptionsSchema>;
