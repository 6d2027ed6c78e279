import path from 'node:path';
import { z } from 'zod';

/** Limits and pools of image analysis (`plugins.search.options.images`). */
export const imageLimitsSchema = z.strictObject({
  /** Largest image, in decoded bytes (base64 body, data: URI, file or download). @default 20971520 */
  maxBytes: z
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(20 * 1024 * 1024),
  /** Largest width x height, checked from the header before decoding. @default 40000000 */
  maxPixels: z.number().int().min(1).max(500_000_000).default(40_000_000),
  /** Decoder threads and tesseract workers (each pool this size). @default 1 */
  workers: z.number().int().min(1).max(16).default(1),
  /** Images that may wait for a worker; beyond workers + maxQueue the answer is 429. @default 16 */
  maxQueue: z.number().int().min(0).max(10_000).default(16),
  /** Budget of decoding and measuring one image, in ms; past it 503 image_analysis_timeout. @default 30000 */
  timeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  /** Budget of one OCR pass, in ms; past it the worker is replaced and `ocr` is null with a warning. @default 20000 */
  ocrTimeoutMs: z.number().int().min(10).max(600_000).default(20_000),
  /** Hosts remote images may come from even on private addresses (egress `allowHosts` syntax). @default [] */
  remoteHosts: z.array(z.string().min(1)).default([]),
  /** Budget of one remote image download, in ms. @default 10000 */
  remoteTimeoutMs: z.number().int().min(100).max(120_000).default(10_000),
});

export type ImageLimits = z.output<typeof imageLimitsSchema>;

/** The keys image analysis adds to the search plugin's options. */
export const imageOptionsShape = {
  /** Absolute directory that `image` paths may name; none by default, so every path is 403 path_not_allowed. */
  mediaRoot: z
    .string()
    .refine((p) => path.isAbsolute(p), 'mediaRoot must be an absolute path')
    .optional(),
  /** Whether `image` may be an http(s) URL (fetched under the egress policy). @default false */
  allowRemoteImages: z.boolean().default(false),
  images: imageLimitsSchema.default(() => imageLimitsSchema.parse({})),
};
