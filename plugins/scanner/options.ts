import { z } from 'tessera-runtime/plugin';

/** Options of the `scanner` plugin (manifest `plugins.scanner.options`). */
export const scannerOptionsSchema = z.strictObject({
  /**
   * Folders that folder scans, file scans and SQLite database files may be under (after symlinks
   * are resolved). Empty: those scans are refused until the operator lists at least one.
   * @default []
   */
  roots: z.array(z.string().min(1)).default([]),
  /** Scans running at once in this process (watching and polling scans hold a slot while they run). @default 8 */
  maxActiveScans: z.number().int().min(1).max(256).default(8),
  /** Documents sent to the index per batch. @default 500 */
  batchDocs: z.number().int().min(1).max(100_000).default(500),
  /** Text kept per file for indexing; the rest of a larger file is not indexed (the hash covers all of it). @default 1048576 */
  maxTextBytes: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Bad lines (file scans) listed with their line number in the scan record; all are counted. @default 1000 */
  maxReportedErrors: z.number().int().min(0).max(100_000).default(1000),
  /** Longest JSONL line, in bytes; a longer one is counted as a bad line and skipped. @default 16777216 */
  maxLineBytes: z
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** How long a watched file must stay unchanged before it is read (chokidar's awaitWriteFinish). @default 200 */
  watchStabilityMs: z.number().int().min(0).max(60_000).default(200),
  /** Database scans: default poll interval. @default 5000 */
  pollIntervalMs: z.number().int().min(10).max(86_400_000).default(5000),
  /** Database scans: default rows per page. @default 1000 */
  pageSize: z.number().int().min(1).max(100_000).default(1000),
  /**
   * Database scans: a poll (connect, read a page) taking longer than this is abandoned, its
   * connections destroyed, and counted as a failure (a half-open connection must not hang a scan). @default 30000
   */
  queryTimeoutMs: z.number().int().min(100).default(30_000),
  /** Retry delays of a watching scan whose source is unreachable: first delay, doubled up to the maximum. @default 1000 */
  retryDelayMs: z.number().int().min(10).default(1000),
  /** @default 60000 */
  maxRetryDelayMs: z.number().int().min(10).default(60_000),
  /** `engineUrl` may name loopback and private addresses (a fleet on one host or one network). @default false */
  allowPrivateAddresses: z.boolean().default(false),
  /** Hosts `engineUrl` may name even where the egress policy refuses them (`host`, `host:port`, `*.domain`, CIDR). @default [] */
  allowHosts: z.array(z.string().min(1)).default([]),
  /** Sent as `x-api-key` to a remote engine (`engineUrl`) that has auth on. */
  engineApiKey: z.string().min(1).optional(),
});

export type ScannerOptions = z.output<typeof scannerOptionsSchema>;
