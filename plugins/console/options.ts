import { z } from 'tessera-runtime/plugin';

export const consoleOptions = z.strictObject({
  /** Documents written per batch by `POST /v1/ingest/{index}` (one segment each). @default 500 */
  batchDocs: z.number().int().min(1).max(100_000).default(500),
  /** Largest item accepted: one JSON element, NDJSON line or CSV row, in bytes. @default 16777216 */
  maxItemBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** Failures listed in an ingestion's answer (all are counted). @default 1000 */
  maxErrors: z.number().int().min(0).default(1000),
  /** Files read from one multipart upload; the rest are ignored. @default 100 */
  maxFiles: z.number().int().min(1).max(10_000).default(100),
  /** Images read from one request; later ones fail with `too_many_images`. @default 50 */
  maxImages: z.number().int().min(1).max(10_000).default(50),
  /** Largest image, in bytes; the search plugin's `images.maxBytes` (20 MiB by default) when unset, and never above it. */
  maxImageBytes: z.number().int().min(1024).optional(),
});

export type ConsoleOptions = z.output<typeof consoleOptions>;
